#!/usr/bin/env node
// One real kafkajs consumer in its own OS process, for the consumer-client role on a
// real broker. It speaks the JSON-lines protocol of
// groupcheck/conform/targets/clients/worker.py (same flags, same events on stdout,
// same commands on stdin), so targets/clients/group.py runs it as one more client:
//
//   node adapters/node/consumer-worker.js --client kafkajs --assignor roundrobin
//        --bootstrap HOST:PORT --group G --topic T --name c1
//        [--session-timeout-ms N] [--heartbeat-interval-ms N] [--max-poll-interval-ms N]
//        [--commit-policy auto|after-processing|none]
//
// kafkajs 2.2.4 is EAGER only, ships one assigner (roundRobin, protocol name
// "RoundRobinAssigner"; there is no range), and has no group.instance.id (its
// JoinGroup never sends one), so --instance-id is refused (exit 2).
//
// WHAT IS DERIVED, AND FROM WHAT (kafkajs has no rebalance listener):
// * generation and member id: read from kafkajs's own ConsumerGroup object
//   (src/consumer/consumerGroup.js: `this.generationId`, `this.memberId`, set from the
//   JoinGroup response in [PRIVATE.JOIN]). The consumer does not expose that object,
//   so this worker wraps ConsumerGroup.prototype.joinAndSync before creating the
//   consumer and keeps the `this` it is called on. The GROUP_JOIN event's payload
//   (memberId, leaderId, memberAssignment, ...) has no generation.
// * revoke: at the start of every ConsumerGroup.joinAndSync (the wrapper), of every
//   partition the application owns. Every path into a rebalance passes there: the
//   runner's start, its REBALANCING path (REBALANCE_IN_PROGRESS from a heartbeat or
//   fetch; the REBALANCING event is emitted just before) and its UNKNOWN_MEMBER_ID
//   path (no event). The runner calls joinAndSync only after fetchManager.start()
//   has thrown, i.e. when no handler runs (src/consumer/runner.js
//   scheduleFetchManager): EAGER, everything is given back before JoinGroup.
//   Also at `close`, before consumer.disconnect() (LeaveGroup).
// * assign: on the GROUP_JOIN instrumentation event (emitted at the end of a
//   successful joinAndSync), of the partitions of our topic in its
//   payload.memberAssignment; the generation is the ConsumerGroup's at that moment.
// * lost: never; kafkajs has no such notion (a fenced member just rejoins, and the
//   revoke above is then its only notice).
// * sample: ConsumerGroup.generationId, .memberId and .assigned() (its
//   SubscriptionState), on change and at least once a second while not stalled.
// * stall: kafkajs has no max.poll.interval.ms and no heartbeat thread: its runner
//   heartbeats between fetches and batches, so an application hung in its handler
//   stops the heartbeats too. The worker stands for that by holding
//   ConsumerGroup.heartbeat (wrapped) until `resume`; the member expires after the
//   session timeout. (The harness gives the judge max.poll.interval.ms = the
//   session timeout for kafkajs.)
// * commit: consumer.commitOffsets of offset 0 for what the application owns; the
//   generation and member id reported are those the OffsetCommit carries (the
//   OffsetManager's, set at SyncGroup); the error is kafkajs's protocol error `type`
//   (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS ...), found along the
//   `cause` chain of its retrier's wrapper.
// * wall: performance.timeOrigin + performance.now() (sub-millisecond), not Date.now().
// * records (--commit-policy, issue 30; worker.py's app_records.py for the others): each
//   message eachMessage is given is processed (`processed` line), then under
//   after-processing committed (consumer.commitOffsets of offset + 1, `commit_sent` /
//   `commit` lines); `auto` is consumer.run's autoCommit (interval 1 s), reported from
//   the COMMIT_OFFSETS instrumentation event (`commit` with auto true); `none` never
//   commits. `hold` (answered `hold_asked`) makes the next eachMessage process its
//   message, say `held` and never return (the runner, heartbeats included, waits: the
//   harness's SIGKILL follows). The `commit` command commits what was processed of what
//   it owns, one partition per OffsetCommit. sync-on-revoke is refused: kafkajs has no rebalance
//   listener the application could commit in.
'use strict'

const readline = require('readline')

function need(name) {
  try {
    return require(name)
  } catch (e) {
    process.stderr.write(`consumer-worker: cannot load ${name} (${e.code || e.message}); ` +
      `install the adapter's packages first: npm ci --prefix adapters/node\n`)
    process.exit(2)
  }
}

const { Kafka, PartitionAssigners, logLevel } = need('kafkajs')
const ConsumerGroup = need('kafkajs/src/consumer/consumerGroup')

const ASSIGNORS = { roundrobin: PartitionAssigners.roundRobin }

function usage(text) {
  process.stderr.write(`consumer-worker: ${text}\n`)
  process.exit(2)
}

function parseArgs(argv) {
  const a = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000, maxPollIntervalMs: 9000 }
  const names = { '--client': 'client', '--assignor': 'assignor', '--bootstrap': 'bootstrap', '--group': 'group',
    '--topic': 'topic', '--name': 'name', '--instance-id': 'instanceId', '--broken': 'broken',
    '--session-timeout-ms': 'sessionTimeoutMs', '--heartbeat-interval-ms': 'heartbeatIntervalMs',
    '--max-poll-interval-ms': 'maxPollIntervalMs', '--commit-policy': 'commitPolicy' }
  for (let i = 0; i < argv.length; i += 2) {
    const key = names[argv[i]]
    if (!key || i + 1 >= argv.length) usage(`unknown or incomplete argument ${JSON.stringify(argv[i])}`)
    a[key] = key.endsWith('Ms') ? Number(argv[i + 1]) : argv[i + 1]
  }
  for (const k of ['client', 'assignor', 'bootstrap', 'group', 'topic', 'name']) {
    if (!a[k]) usage(`--${k} is required`)
  }
  if (a.client !== 'kafkajs') usage(`this worker runs kafkajs only, not ${JSON.stringify(a.client)}`)
  if (!ASSIGNORS[a.assignor]) usage(`kafkajs has no assignor ${JSON.stringify(a.assignor)}; known: roundrobin`)
  if (a.instanceId) usage('kafkajs 2.2.4 has no group.instance.id (static membership)')
  if (a.broken) usage('no broken kafkajs application is built')
  if (a.commitPolicy === 'sync-on-revoke') {
    usage('sync-on-revoke is not applicable to kafkajs 2.2.4: it has no rebalance listener to commit in')
  }
  if (a.commitPolicy && !['auto', 'after-processing', 'none'].includes(a.commitPolicy)) {
    usage(`unknown commit policy ${JSON.stringify(a.commitPolicy)}`)
  }
  return a
}

// The wall clock in seconds, finer than Date.now()'s milliseconds: the harness orders
// these stamps against its own time.time(), and a stamp truncated to the millisecond
// could land before the operation that caused it.
const wall = () => (performance.timeOrigin + performance.now()) / 1000

function emit(kind, fields = {}) {
  process.stdout.write(JSON.stringify({ kind, wall: wall(), ...fields }) + '\n')
}

// kafkajs's protocol error type (ILLEGAL_GENERATION ...), also when its retrier wrapped
// it (KafkaJSNonRetriableError / KafkaJSNumberOfRetriesExceeded keep it as `cause`).
function errorType(e) {
  for (let x = e; x; x = x.cause) if (x.type) return x.type
  return e.name
}

const sorted = xs => [...xs].sort((x, y) => x - y)

async function main() {
  const a = parseArgs(process.argv.slice(2))
  let group = null                  // kafkajs's ConsumerGroup, kept by the wrappers
  let stalled = false
  let released = null               // resolves a held heartbeat at `resume`
  const owned = new Set()           // the application's view

  const joinAndSync = ConsumerGroup.prototype.joinAndSync
  ConsumerGroup.prototype.joinAndSync = function () {
    group = this
    callback('revoke', [...owned])
    return joinAndSync.call(this)
  }
  const heartbeat = ConsumerGroup.prototype.heartbeat
  ConsumerGroup.prototype.heartbeat = async function (...args) {
    while (stalled) await new Promise(resolve => { released = resolve })
    return heartbeat.apply(this, args)
  }

  function identity() {
    return group ? [group.generationId == null ? -1 : group.generationId, group.memberId || ''] : [-1, '']
  }
  function callback(kind, parts) {
    if (kind === 'revoke' && parts.length === 0) return   // EAGER with nothing owned: no notice
    const before = sorted(owned)
    for (const p of parts) kind === 'assign' ? owned.add(p) : owned.delete(p)
    const [generation, memberId] = identity()
    emit(kind, { partitions: sorted(parts), member_id: memberId, generation,
      owned_before: before, owned_after: sorted(owned) })
  }

  const kafka = new Kafka({ clientId: a.name, brokers: [a.bootstrap], logLevel: logLevel.NOTHING,
    retry: { retries: 10 } })
  const consumer = kafka.consumer({ groupId: a.group, partitionAssigners: [ASSIGNORS[a.assignor]],
    sessionTimeout: a.sessionTimeoutMs, heartbeatInterval: a.heartbeatIntervalMs,
    rebalanceTimeout: a.maxPollIntervalMs, allowAutoTopicCreation: false })
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    callback('assign', payload.memberAssignment[a.topic] || [])
  })
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    emit('error', { error: `crash: ${payload.error && errorType(payload.error)}` })
  })

  let last = null
  let lastAt = 0
  const sampler = setInterval(() => {
    if (stalled || !group) return
    const [generation, memberId] = identity()
    const assignment = sorted(group.assigned().filter(t => t.topic === a.topic).flatMap(t => t.partitions))
    const now = JSON.stringify([generation, memberId, assignment])
    if (now !== last || Date.now() - lastAt >= 1000) {
      last = now
      lastAt = Date.now()
      emit('sample', { generation, member_id: memberId, assignment })
    }
  }, 100)

  async function commit() {
    const om = group && group.offsetManager
    const generation = om ? om.generationId : -1
    const memberId = om ? om.memberId || '' : ''
    emit('commit_sent', { generation, member_id: memberId })
    let error = null
    try {
      await consumer.commitOffsets(sorted(owned).map(partition => ({ topic: a.topic, partition, offset: '0' })))
    } catch (e) {
      error = errorType(e)
    }
    emit('commit', { generation, member_id: memberId, error })
  }

  const records = { holdAsked: false, processed: new Map() }   // partition -> next offset to process
  async function commitRecord(partition, next) {
    const [generation, memberId] = identity()
    const offsets = { [partition]: next }
    emit('commit_sent', { generation, member_id: memberId, offsets })
    let error = null
    try {
      await consumer.commitOffsets([{ topic: a.topic, partition, offset: String(next) }])
    } catch (e) {
      error = errorType(e)
    }
    emit('commit', { generation, member_id: memberId, offsets, error, auto: false })
  }

  async function close() {
    clearInterval(sampler)
    stalled = false
    if (released) released()
    callback('revoke', [...owned])
    try {
      await consumer.disconnect()
    } catch (e) {
      emit('error', { error: `close: ${e.type || e.message}` })
    }
    emit('closed')
    process.exit(0)
  }

  let queue = Promise.resolve()     // commands run one at a time, in order
  const lines = readline.createInterface({ input: process.stdin })
  lines.on('line', line => {
    const cmd = line.trim()
    queue = queue.then(async () => {
      if (cmd === 'close') return close()
      if (cmd === 'stall') stalled = true
      if (cmd === 'resume') {
        stalled = false
        if (released) released()
      }
      if (cmd === 'commit' && a.commitPolicy) {       // records: commit what was processed, not offset 0
        for (const [partition, next] of [...records.processed].sort((x, y) => x[0] - y[0])) {
          if (owned.has(partition)) await commitRecord(partition, next)
        }
        return
      }
      if (cmd === 'commit') return commit()
      if (cmd === 'hold' && a.commitPolicy) {
        records.holdAsked = true
        emit('hold_asked')
      }
    })
  })
  lines.on('close', () => { queue = queue.then(close) })   // the harness went away

  await consumer.connect()
  await consumer.subscribe({ topics: [a.topic], fromBeginning: true })
  emit('ready')
  if (!a.commitPolicy) {
    await consumer.run({ autoCommit: false, eachMessage: async () => {} })
    return
  }
  consumer.on(consumer.events.COMMIT_OFFSETS, ({ payload }) => {
    const offsets = {}
    for (const t of payload.topics) {
      if (t.topic === a.topic) for (const p of t.partitions) offsets[p.partition] = Number(p.offset)
    }
    emit('commit', { generation: payload.groupGenerationId, member_id: payload.memberId, offsets,
      error: null, auto: true })
  })
  await consumer.run({ autoCommit: a.commitPolicy === 'auto', autoCommitInterval: 1000,
    eachMessage: async ({ topic, partition, message }) => {
      if (topic !== a.topic) return
      const offset = Number(message.offset)
      const [generation, memberId] = identity()
      emit('processed', { partition, offset, member_id: memberId, generation })
      records.processed.set(partition, offset + 1)
      if (records.holdAsked) {
        records.holdAsked = false
        emit('held', { partition, offset })
        await new Promise(() => {})             // blocked before committing, until SIGKILL
      }
      if (a.commitPolicy === 'after-processing') await commitRecord(partition, offset + 1)
    } })
}

main().catch(e => {
  emit('error', { error: `${errorType(e)}: ${e.message}` })
  process.exit(1)
})
