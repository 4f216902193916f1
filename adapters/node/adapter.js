#!/usr/bin/env node
// groupcheck conformance adapter (protocol v1, role assignor) around kafkajs's
// partition assigners. One JSON request per line on stdin, one JSON reply per line on
// stdout (nothing else is written there); logs go to stderr. See README.md beside
// this file and groupcheck/conform/PROTOCOL.md.
'use strict'

const fs = require('fs')
const path = require('path')
const readline = require('readline')

function need(name) {
  try {
    return require(name)
  } catch (e) {
    process.stderr.write(`adapter: cannot load ${name} (${e.code || e.message}); ` +
      `install the adapter's packages first: npm ci --prefix adapters/node\n`)
    process.exit(2)
  }
}

const { PartitionAssigners, AssignerProtocol } = need('kafkajs')
const Ajv2020 = need('ajv/dist/2020')
const KAFKAJS_VERSION = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve('kafkajs')), 'package.json'), 'utf8')).version
const { MemberMetadata, MemberAssignment } = AssignerProtocol

// ---------------------------------------------------------------- schemas

const SCHEMA_DIR = path.resolve(__dirname, '..', '..', 'groupcheck', 'conform', 'schema')
const ENVELOPE = 'https://groupcheck.dev/conform/envelope.schema.json'
const ASSIGNOR = 'https://groupcheck.dev/conform/assignor.schema.json'

const ajv = new Ajv2020({ strict: false, allErrors: false })
for (const file of ['envelope.schema.json', 'assignor.schema.json']) {
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, file), 'utf8')))
}
const validator = ref => ajv.compile({ $ref: ref })
const check = {
  request: validator(`${ENVELOPE}#/$defs/request`),
  reply: validator(`${ENVELOPE}#/$defs/reply`),
  hello: validator(`${ENVELOPE}#/$defs/hello`),
  setupConfig: validator(`${ASSIGNOR}#/$defs/setupConfig`),
  assignArgument: validator(`${ASSIGNOR}#/$defs/assignArgument`),
  assignResult: validator(`${ASSIGNOR}#/$defs/assignResult`),
}

class Invalid extends Error {}

// Throws Invalid naming the first failing path (prefixed with `where`, e.g. "/value").
function validate(name, data, where = '') {
  const fn = check[name]
  if (fn(data)) return
  const e = fn.errors[0]
  let at = `${where}${e.instancePath}` || '/'
  if (e.keyword === 'required') at = `${where}${e.instancePath}/${e.params.missingProperty}`
  if (e.keyword === 'additionalProperties') at = `${where}${e.instancePath}/${e.params.additionalProperty}`
  const allowed = e.params && e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''
  throw new Invalid(`${at}: ${e.message}${allowed}`)
}

// ---------------------------------------------------------------- assigners

// A stub of kafkajs's Cluster: the one method its assigners call, answering from the
// scenario's topics (topic -> partition count). Like kafkajs's own, a topic it does
// not know has no partitions.
function stubCluster(topics) {
  return {
    findTopicPartitionMetadata(topic) {
      const count = Object.prototype.hasOwnProperty.call(topics, topic) ? topics[topic] : 0
      return Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 0, replicas: [0], isr: [0] }))
    },
  }
}

// Decoded MemberAssignment -> per topic partitions; the sorted member ids of a group.
const decode = buffer => (MemberAssignment.decode(buffer) || { assignment: {} }).assignment
const encode = assignment => MemberAssignment.encode({ version: 0, assignment })
const sortedIds = members => members.map(({ memberId }) => memberId).sort()

// Deliberately broken assigners, in kafkajs's PartitionAssigner shape, each built on
// kafkajs's roundRobin with one seeded mistake (README.md: what each should be flagged by).
const BROKEN = {
  // The first member's first partition also goes to the second member (member-id order).
  'broken-duplicate': ({ cluster }) => {
    const inner = PartitionAssigners.roundRobin({ cluster })
    return {
      name: 'BrokenDuplicateAssigner',
      version: inner.version,
      protocol: args => inner.protocol(args),
      async assign(group) {
        const out = await inner.assign(group)
        const [first, second] = sortedIds(group.members)
        const firstEntry = out.find(a => a.memberId === first)
        if (second === undefined || firstEntry === undefined) return out
        const given = decode(firstEntry.memberAssignment)
        const topic = Object.keys(given)[0]
        const secondEntry = out.find(a => a.memberId === second)
        const taken = secondEntry ? decode(secondEntry.memberAssignment) : {}
        taken[topic] = [...(taken[topic] || []), given[topic][0]]
        const rest = out.filter(a => a.memberId !== second)
        return [...rest, { memberId: second, memberAssignment: encode(taken) }]
      },
    }
  },
  // The last member in member-id order gets nothing; the others share its partitions.
  'broken-skip-last-member': ({ cluster }) => {
    const inner = PartitionAssigners.roundRobin({ cluster })
    return {
      name: 'BrokenSkipLastMemberAssigner',
      version: inner.version,
      protocol: args => inner.protocol(args),
      async assign({ members, topics }) {
        const last = sortedIds(members).pop()
        const kept = members.length > 1 ? members.filter(m => m.memberId !== last) : members
        return inner.assign({ members: kept, topics })
      },
    }
  },
  // kafkajs's roundRobin declared COOPERATIVE: it never looks at owned partitions (its
  // MemberMetadata v0 cannot even carry them), so it moves an owned partition straight
  // to another member instead of revoking it first.
  'broken-cooperative-ignores-owned': ({ cluster }) => {
    const inner = PartitionAssigners.roundRobin({ cluster })
    return {
      name: 'BrokenCooperativeAssigner',
      version: inner.version,
      protocol: args => inner.protocol(args),
      assign: group => inner.assign(group),
    }
  },
}

// Each assignor: its factory, the rebalance protocols it declares, and its balance
// contract (always: counts within 1 when every member subscribes to the same topics;
// the broken ones claim roundrobin's contract, which is what they break).
const ASSIGNORS = {
  roundrobin: { make: PartitionAssigners.roundRobin, protocols: ['EAGER'], balanced: 'always' },
  'broken-duplicate': { make: BROKEN['broken-duplicate'], protocols: ['EAGER'], balanced: 'always' },
  'broken-skip-last-member': { make: BROKEN['broken-skip-last-member'], protocols: ['EAGER'], balanced: 'always' },
  'broken-cooperative-ignores-owned': {
    make: BROKEN['broken-cooperative-ignores-owned'], protocols: ['COOPERATIVE'], balanced: 'always' },
}

// The ConsumerProtocol versions kafkajs's assigners write (MemberMetadata and
// MemberAssignment share the assigner's version field).
const WIRE_VERSION = PartitionAssigners.roundRobin({ cluster: stubCluster({}) }).version

function hello() {
  return {
    name: 'kafkajs',
    version: KAFKAJS_VERSION,
    roles: ['assignor'],
    assignors: Object.keys(ASSIGNORS),
    runtime: `node ${process.version}`,
    protocol_names: Object.fromEntries(Object.entries(ASSIGNORS).map(
      ([name, a]) => [name, a.make({ cluster: stubCluster({}) }).name])),
    protocols: Object.fromEntries(Object.entries(ASSIGNORS).map(([name, a]) => [name, a.protocols])),
    balanced: Object.fromEntries(Object.entries(ASSIGNORS).map(([name, a]) => [name, a.balanced])),
    wire: { subscription_version: WIRE_VERSION, assignment_version: WIRE_VERSION,
            drops: ['owned_partitions', 'generation', 'group_instance_id', 'user_data'] },
  }
}

// invoke f=assign: the scenario through kafkajs's wire format and assigner.
async function assign(name, { topics, members }) {
  const assigner = ASSIGNORS[name].make({ cluster: stubCluster(topics) })
  // Each member's subscription as kafkajs's consumer sends it in JoinGroup
  // (assigner.protocol -> MemberMetadata.encode, version 0: topics, empty userData).
  const group = members.map(m => ({
    memberId: m.member_id,
    memberMetadata: assigner.protocol({ topics: m.topics }).metadata,
  }))
  // The group's topics: the union of the decoded subscriptions, in first-seen order
  // (kafkajs's leader hands its own subscribed topics, unsorted; see README.md).
  const groupTopics = []
  for (const { memberMetadata } of group) {
    for (const topic of MemberMetadata.decode(memberMetadata).topics) {
      if (!groupTopics.includes(topic)) groupTopics.push(topic)
    }
  }
  const answer = await assigner.assign({ members: group, topics: groupTopics })
  const assignment = {}
  for (const { memberId, memberAssignment } of answer) {
    const decoded = MemberAssignment.decode(memberAssignment)
    if (decoded !== null && decoded.version !== WIRE_VERSION) {
      log(`assignment for ${memberId} decoded at version ${decoded.version}, expected ${WIRE_VERSION}`)
    }
    const tps = assignment[memberId] || (assignment[memberId] = [])
    for (const [topic, partitions] of Object.entries(decoded ? decoded.assignment : {})) {
      for (const partition of partitions) tps.push([topic, partition])
    }
  }
  return { assignment }
}

// ---------------------------------------------------------------- session

function log(text) {
  process.stderr.write(`adapter: ${text}\n`)
}

const session = { opened: false, assignor: null }

async function handle(request) {
  validate('request', request)
  switch (request.op) {
    case 'open':
      if (request.protocol !== 1) throw new Invalid('/protocol: open must give protocol 1')
      session.opened = true
      return hello()
    case 'setup': {
      if (!session.opened) throw new Invalid('setup before open')
      if (request.role !== 'assignor') throw new Invalid(`/role: ${JSON.stringify(request.role)} is not a role of this adapter (assignor)`)
      validate('setupConfig', request.config === undefined ? {} : request.config, '/config')
      const name = request.config.assignor
      if (!Object.prototype.hasOwnProperty.call(ASSIGNORS, name)) {
        throw new Invalid(`/config/assignor: unknown assignor ${JSON.stringify(name)} (this adapter has ${Object.keys(ASSIGNORS).join(', ')})`)
      }
      session.assignor = name
      return undefined
    }
    case 'invoke':
      if (session.assignor === null) throw new Invalid('invoke before setup')
      if (request.role !== 'assignor') throw new Invalid(`/role: ${JSON.stringify(request.role)} is not the role set up (assignor)`)
      if (request.f !== 'assign') throw new Invalid(`/f: ${JSON.stringify(request.f)} is not a function of role assignor (assign)`)
      validate('assignArgument', request.value, '/value')
      return assign(session.assignor, request.value)
    case 'teardown':
      session.assignor = null
      return undefined
    case 'close':
      return undefined
  }
}

function write(reply, check_value) {
  validate('reply', reply)
  if (check_value) validate(check_value, reply.value, '/value')
  process.stdout.write(JSON.stringify(reply) + '\n')
}

// The reply to one line, and the op it asked for (undefined if it was not JSON).
async function reply(line) {
  let request
  try {
    request = JSON.parse(line)
  } catch (e) {
    return [{ type: 'fail', error: `not JSON: ${e.message}` }, undefined]
  }
  const op = request && typeof request === 'object' ? request.op : undefined
  const id = request && Number.isInteger(request.id) && request.id >= 0 ? { id: request.id } : {}
  try {
    const value = await handle(request)
    return [value === undefined ? { type: 'ok', ...id } : { type: 'ok', ...id, value }, op]
  } catch (e) {
    if (!(e instanceof Invalid)) log(`${op}: ${e.stack || e}`)
    const prefix = e instanceof Invalid ? `invalid ${op === undefined ? '' : op + ' '}request: ` : ''
    return [{ type: 'fail', ...id, error: `${prefix}${e.message}` }, op]
  }
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of lines) {
    if (line.trim() === '') continue
    const [out, op] = await reply(line)
    const kind = out.type !== 'ok' ? null : op === 'open' ? 'hello' : op === 'invoke' ? 'assignResult' : null
    try {
      write(out, kind)
    } catch (e) {          // our own reply broke the schema: say so instead of sending it
      log(`reply ${JSON.stringify(out)} is invalid: ${e.message}`)
      write({ type: 'fail', ...(out.id === undefined ? {} : { id: out.id }), error: `adapter error: its reply was invalid: ${e.message}` })
    }
    if (op === 'close' && out.type === 'ok') {
      process.stdout.write('', () => process.exit(0))
      return
    }
  }
  log('stdin closed without close')
}

main().catch(e => {
  log(e.stack || String(e))
  process.exit(1)
})
