#!/usr/bin/env bash
# Build Apache Kafka's Java client (kafka-clients) from a Kafka source tree with plain javac,
# then the groupcheck consumer worker against it.
#
#   adapters/java/build.sh KAFKA_SOURCE_DIR OUT_DIR [OTEL_PROTO_DIR]
#
# KAFKA_SOURCE_DIR: a Kafka release branch with at least clients/, generator/, build.gradle and
#   gradle.properties, e.g. `git -C KAFKA_GIT archive 3.9 clients generator build.gradle
#   gradle.properties | tar -x -C /tmp/kafka-3.9`.
# OUT_DIR: a new or empty folder outside this repository (nothing is overwritten).
# OTEL_PROTO_DIR: the opentelemetry-proto sources (v1.0.0, the version Kafka 3.7+ uses), needed
#   only when the client has KIP-714 telemetry (it imports io.opentelemetry.proto).
#
# The jars it compiles against are Debian's (see README.md for the apt-get line); DEPS_DIR
# (default /usr/share/java) names another folder holding the same jar names; EXTRA_CLASSPATH
# adds jars Debian lacks to the generator's and the client's compile classpath.
# It writes OUT_DIR/kafka-clients-<version>.jar, OUT_DIR/worker/ and the launcher
# OUT_DIR/consumer-worker (what GROUPCHECK_JAVA_CLIENT=OUT_DIR runs).
set -euo pipefail

fail() { echo "build.sh: $*" >&2; exit 2; }

[ $# -ge 2 ] && [ $# -le 3 ] || fail "usage: build.sh KAFKA_SOURCE_DIR OUT_DIR [OTEL_PROTO_DIR]"
SRC=$1; OUT=$2; OTEL=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DEPS=${DEPS_DIR:-/usr/share/java}

[ -d "$SRC" ] || fail "no such Kafka source folder: $SRC"
SRC=$(cd "$SRC" && pwd)
for f in clients/src/main/java/org/apache/kafka/clients/consumer/KafkaConsumer.java \
         generator/src/main/java/org/apache/kafka/message/MessageGenerator.java build.gradle gradle.properties; do
    [ -f "$SRC/$f" ] || fail "$SRC is not a Kafka source tree: $f is missing"
done
OUT=$(realpath -m "$OUT")             # checked before anything is made
case "$OUT/" in "$REPO/"*) fail "OUT_DIR $OUT is inside the repository; pick a folder outside it (e.g. /tmp/kafka-java-3.9)";; esac
[ ! -e "$OUT" ] || [ -z "$(ls -A "$OUT")" ] || fail "OUT_DIR $OUT is not empty; remove it or pick another"
if [ -n "$OTEL" ]; then
    [ -f "$OTEL/opentelemetry/proto/metrics/v1/metrics.proto" ] || fail "$OTEL has no opentelemetry/proto/metrics/v1/metrics.proto"
    OTEL=$(cd "$OTEL" && pwd)
fi

dep() {  # the path of one dependency jar, or a clear line naming the Debian package
    [ -f "$DEPS/$1.jar" ] || fail "missing $DEPS/$1.jar: apt-get install $2"
    echo "$DEPS/$1.jar"
}
GEN_CP=$(dep jackson-databind libjackson2-databind-java):$(dep jackson-core libjackson2-core-java):$(dep jackson-annotations libjackson2-annotations-java):$(dep argparse4j libargparse4j-java)
GEN_CP=$GEN_CP${EXTRA_CLASSPATH:+:$EXTRA_CLASSPATH}     # e.g. jackson-datatype-jdk8 for trunk (README.md)
RUN_CP=$(dep slf4j-api libslf4j-java):$(dep slf4j-simple libslf4j-java):$(dep lz4-java liblz4-java):$(dep snappy-java libsnappy-java):$(dep zstd-jni libzstd-jni-java)
VERSION=$(sed -n 's/^version=//p' "$SRC/gradle.properties")
RELEASE=$(sed -n 's/^ *minJavaVersion = "\?\([0-9]*\)"\?.*/\1/p' "$SRC/build.gradle" | head -1)
RELEASE=${RELEASE:-8}
mkdir -p "$OUT"
JAVAC=(nice -n 10 javac -J-Xmx1500m -nowarn -Xlint:none -encoding UTF-8 --release "$RELEASE")
started=$(date +%s)

echo "build.sh: kafka-clients $VERSION from $SRC (javac --release $RELEASE) into $OUT"
# 1. the message generator, then the generated protocol messages (build.gradle's processMessages)
mkdir -p "$OUT/generator" "$OUT/generated"
"${JAVAC[@]}" -d "$OUT/generator" -cp "$GEN_CP" $(find "$SRC/generator/src/main/java" -name '*.java')
MESSAGES=(org.apache.kafka.common.message "$OUT/generated/org/apache/kafka/common/message"
          "$SRC/clients/src/main/resources/common/message")
if grep -q '"--package"' "$SRC/generator/src/main/java/org/apache/kafka/message/MessageGenerator.java"; then
    ARGS=(-p "${MESSAGES[0]}" -o "${MESSAGES[1]}" -i "${MESSAGES[2]}"
          -t ApiMessageTypeGenerator -m MessageDataGenerator JsonConverterGenerator)    # 2.7 and later
else
    ARGS=("${MESSAGES[@]}")                                                            # before: positional
fi
java -cp "$OUT/generator:$GEN_CP" org.apache.kafka.message.MessageGenerator "${ARGS[@]}" > "$OUT/generator.log"

# 2. KIP-714's telemetry classes import the OpenTelemetry metrics protos: generate them with protoc
CLIENT_CP=$RUN_CP:$GEN_CP
if grep -rqs "^import io.opentelemetry.proto" "$SRC/clients/src/main/java"; then
    [ -n "$OTEL" ] || fail "this client imports io.opentelemetry.proto: give OTEL_PROTO_DIR (opentelemetry-proto v1.0.0 sources)"
    command -v protoc >/dev/null || fail "no protoc: apt-get install protobuf-compiler"
    protoc -I "$OTEL" --java_out="$OUT/generated" $(cd "$OTEL" && find opentelemetry/proto/{common,resource,metrics} -name '*.proto' | sed "s|^|$OTEL/|")
    CLIENT_CP=$CLIENT_CP:$(dep protobuf libprotobuf-java)
    RUN_CP=$RUN_CP:$(dep protobuf libprotobuf-java)
fi

# 3. the client sources, less those that need a library Debian does not package (jose4j: the
#    SASL/OAUTHBEARER OIDC login and validator) and, to a fixed point, the files naming them
(cd "$SRC/clients/src/main/java" && find . -name '*.java' | sort) > "$OUT/all-sources.txt"
(cd "$SRC/clients/src/main/java" && grep -rl "^import org\.jose4j" . | sort || true) > "$OUT/left-out.txt"
while :; do
    names=$(xargs -r -n1 basename -s .java < "$OUT/left-out.txt" | sort -u | paste -sd'|')
    [ -n "$names" ] || break
    (cd "$SRC/clients/src/main/java" && grep -rlwE "$names" . | sort) > "$OUT/left-out.next"
    cmp -s "$OUT/left-out.txt" "$OUT/left-out.next" && break
    mv "$OUT/left-out.next" "$OUT/left-out.txt"
done
rm -f "$OUT/left-out.next"
comm -23 "$OUT/all-sources.txt" "$OUT/left-out.txt" | sed "s|^\.|$SRC/clients/src/main/java|" > "$OUT/sources.txt"
find "$OUT/generated" -name '*.java' >> "$OUT/sources.txt"
echo "build.sh: compiling $(wc -l < "$OUT/sources.txt") files ($(wc -l < "$OUT/left-out.txt") left out, listed in $OUT/left-out.txt)"
mkdir -p "$OUT/classes"
"${JAVAC[@]}" -d "$OUT/classes" -cp "$CLIENT_CP" @"$OUT/sources.txt" 2> "$OUT/javac.log" \
    || { tail -30 "$OUT/javac.log" >&2; exit 1; }
cp -r "$SRC/clients/src/main/resources/META-INF" "$OUT/classes/" 2>/dev/null || true
mkdir -p "$OUT/classes/kafka"
printf 'version=%s\ncommitId=%s\n' "$VERSION" "unknown" > "$OUT/classes/kafka/kafka-version.properties"
jar cf "$OUT/kafka-clients-$VERSION.jar" -C "$OUT/classes" .

# 4. the worker, and its launcher
mkdir -p "$OUT/worker"
"${JAVAC[@]}" -d "$OUT/worker" -cp "$OUT/kafka-clients-$VERSION.jar" "$HERE/ConsumerWorker.java"
cat > "$OUT/consumer-worker" <<EOF
#!/bin/sh
# kafka-clients $VERSION built by adapters/java/build.sh from $SRC
exec java -XX:+UseSerialGC -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \\
    -cp "$OUT/worker:$OUT/kafka-clients-$VERSION.jar:$RUN_CP" ConsumerWorker "\$@"
EOF
chmod +x "$OUT/consumer-worker"
echo "$VERSION" > "$OUT/VERSION"
echo "build.sh: done in $(( $(date +%s) - started )) s: $OUT/consumer-worker"
