import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import jwt from '@tsndr/cloudflare-worker-jwt'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { signAccessToken } from '../../worker-api/lib/jwt'
import { app, call, createOrganisation, createUser, currentPost, ORIGIN, sessionFor } from './helpers'
import { openApiDocument, type OpenApiParameter as Parameter, type OpenApiSchema as Schema } from './openapi-document'

/**
 * Property-based fuzzing of every operation of the OpenAPI document: hostile path parameters,
 * queries, headers and bodies, sent by anonymous, forged and signed-in callers. Whatever is sent:
 *   1. the answer is never a 5xx (but the 501 of an operation the document says is not implemented);
 *   2. a rejection (>= 400) is JSON with exactly { businessCode, message, attributs } (the OpenID
 *      Connect protocol's endpoints: OAuth's { error, error_description }; SCIM's: { schemas, status, detail });
 *   3. a rejection writes no row of the domain tables.
 * The operations are read from the document itself, so an operation added later is fuzzed too, and
 * the tables from the schema, so a table added later is watched too. Each run must try every request
 * it planned: one cut short by its time budget fails rather than passing on less.
 */

const RUNS_PER_OPERATION = 25

/** The OpenID Connect protocol's endpoints, which answer errors as OAuth does. */
const OAUTH_PROTOCOL = /^\/portail-backend\/(oidc\/|\.well-known\/)/
/** SCIM's endpoints answer errors as SCIM does (RFC 7644 §3.12). */
const SCIM = /^\/portail-backend\/scim\//
/**
 * Every planned request runs, however busy the machine: a run is never cut short by a time budget
 * (on a loaded 2-core machine a request took up to a second, twenty times what it takes on an idle
 * one). What bounds a run is only a guard against a request that never ends: a request may take this
 * long on average before the test fails as stuck.
 */
const STUCK_MS_PER_REQUEST = 5_000
/** Beyond that, the time to shrink a counterexample and report it. */
const REPORT_MS = 30_000

// ---------------------------------------------------------------------------------------------
// The OpenAPI document

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

const documentResponse = await call('/openapi.json')
const openapi = await openApiDocument(documentResponse)

/** A parameter or a body property, with its schema when the document gives one. */
type Field = { name: string; schema?: Schema | undefined }

type DocumentedOperation = {
  method: string
  path: string
  pathParams: Field[]
  queryParams: Field[]
  headerParams: Field[]
  bodyProperties: Field[]
  secured: boolean
}

function resolve(schema: Schema | undefined, seen = new Set<string>()): Schema | undefined {
  if (!schema?.$ref) return schema
  if (seen.has(schema.$ref)) return undefined
  seen.add(schema.$ref)
  const name = schema.$ref.replace('#/components/schemas/', '')
  return resolve(openapi.components?.schemas?.[name], seen)
}

/** The properties a body schema declares (through $ref and allOf/anyOf/oneOf too). */
function bodyFields(schema: Schema | undefined, depth = 0): Field[] {
  const resolved = resolve(schema)
  if (!resolved || depth > 5) return []
  const own = Object.entries(resolved.properties ?? {}).map(([name, property]) => ({ name, schema: resolve(property) }))
  const composed = [...(resolved.allOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])].flatMap((s) =>
    bodyFields(s, depth + 1),
  )
  return unique([...own, ...composed])
}

const unique = (fields: Field[]) => [...new Map(fields.map((field) => [field.name, field])).values()]

const operations: DocumentedOperation[] = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.includes(method))
    .map(([method, operation]) => {
      const parameters = operation.parameters ?? []
      const fields = (where: Parameter['in']) =>
        parameters.filter((p) => p.in === where).map((p) => ({ name: p.name, schema: resolve(p.schema) }))
      // The placeholders of the path are what gets replaced, declared or not.
      const pathFields = fields('path')
      const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '')
      const content = operation.requestBody?.content ?? {}
      return {
        method: method.toUpperCase(),
        path,
        pathParams: placeholders.map((name) => pathFields.find((f) => f.name === name) ?? { name }),
        queryParams: fields('query'),
        headerParams: fields('header'),
        bodyProperties: unique(Object.values(content).flatMap((media) => bodyFields(media.schema))),
        secured: (operation.security ?? []).length > 0,
      }
    }),
)

/**
 * The operations the document says are not implemented (a 501 response, SCIM's read-only groups): their
 * 501 is the documented answer, not a failure. As path patterns, by method.
 */
const NOT_IMPLEMENTED = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, operation]) => HTTP_METHODS.includes(method) && '501' in (operation.responses ?? {}))
    .map(([method]) => ({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    })),
)
const documented501 = (method: string, path: string) =>
  NOT_IMPLEMENTED.some((operation) => operation.method === method && operation.pattern.test(path))

// ---------------------------------------------------------------------------------------------
// The database: what a rejected request must leave as it was

/**
 * Tables left out on purpose, as bookkeeping that rejected requests write by design: login_attempt
 * (failed sign-ins and wrong old passwords are counted), rate_limit (requests are counted before they
 * are validated), captcha_used, compte_service_usage (a service account's calls, refused ones
 * included), client_assertion_jti (an assertion is spent once checked); and the migrations' own record.
 */
const BOOKKEEPING_TABLES = [
  'login_attempt',
  'rate_limit',
  'captcha_used',
  'compte_service_usage',
  'client_assertion_jti',
  'd1_migrations',
]

/** Every other table of the schema, read from it: a table a later migration adds is watched too. */
const { results: schemaTables } = await env.DB.prepare(
  `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
   AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name`,
).all<{ name: string }>()
const DOMAIN_TABLES = schemaTables.map((t) => t.name).filter((name) => !BOOKKEEPING_TABLES.includes(name))

/**
 * What watches them for each request: a trigger on every domain table counts each row a statement
 * inserts, deletes or changes (an update that leaves a row as it was is no write) in one row of
 * `fuzz_writes`, with the table's name; a request's writes are the counter's move, one read before and
 * one after it, however many rows the tables hold.
 */
const columns = await env.DB.batch(
  DOMAIN_TABLES.map((table) => env.DB.prepare('SELECT name FROM pragma_table_info(?)').bind(table)),
)
const count = (table: string) =>
  `BEGIN UPDATE fuzz_writes SET n = n + 1, tables = substr(tables || ' ${table}', 1, 4000); END`
await env.DB.batch([
  env.DB.prepare("CREATE TABLE fuzz_writes (n INTEGER NOT NULL, tables TEXT NOT NULL DEFAULT '')"),
  env.DB.prepare('INSERT INTO fuzz_writes (n) VALUES (0)'),
  ...DOMAIN_TABLES.flatMap((table, i) => {
    const names = (columns[i]?.results ?? []).map((row) => String((row as { name: string }).name))
    const changed = names.map((name) => `OLD."${name}" IS NOT NEW."${name}"`).join(' OR ')
    return [
      env.DB.prepare(`CREATE TRIGGER "fuzz_insert_${table}" AFTER INSERT ON "${table}" ${count(table)}`),
      env.DB.prepare(`CREATE TRIGGER "fuzz_delete_${table}" AFTER DELETE ON "${table}" ${count(table)}`),
      env.DB.prepare(
        `CREATE TRIGGER "fuzz_update_${table}" AFTER UPDATE ON "${table}" WHEN ${changed} ${count(table)}`,
      ),
    ]
  }),
])

type Writes = { n: number; tables: string }

/**
 * The write counter of the domain tables and the tables written since the last reading, whose list
 * then starts over (one round trip).
 */
async function writes(): Promise<Writes> {
  const [read] = await env.DB.batch([
    env.DB.prepare('SELECT n, tables FROM fuzz_writes'),
    env.DB.prepare("UPDATE fuzz_writes SET tables = ''"),
  ])
  return read?.results[0] as Writes
}

/** The tables written between two readings of the counter, each once, sorted. */
const writtenTables = (before: Writes, after: Writes) =>
  after.n === before.n ? [] : [...new Set(after.tables.trim().split(' '))].sort()

// ---------------------------------------------------------------------------------------------
// Hostile values

const excerpt = (text: string, max = 300) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text

/**
 * What an HTTP header can carry: no control characters, and ASCII (workerd would send anything else
 * as UTF-8, with a warning per header, where a browser refuses to send it at all).
 */
const headerSafe = (value: string) => value.replace(/[^\t\x20-\x7e]/g, '?')

const utf8Base64 = (text: string) => {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

const PAYLOADS = [
  '1 OR 1=1',
  "' OR '1'='1",
  "admin'--",
  '1; DROP TABLE utilisateur; --',
  "' UNION SELECT password_hash, mail FROM utilisateur --",
  '"; DELETE FROM log; --',
  '%',
  '%%',
  '_',
  '\\',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection payload, on purpose
  '${7*7}',
  '%s%s%s%n',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '\u0000',
  'a\u0000b',
  '\r\nSet-Cookie: injected=1',
  '\u202Eevil\u202C',
  '\uFEFF',
  '\u200B\u200D',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '0',
  '-1',
  '-0',
  '1e308',
  '1e-308',
  '9007199254740993',
  '99999999999999999999999',
  '1.5',
  '0x10',
  ' 1 ',
  '',
  ' ',
  '😀😀😀',
  'Ǆǅǆ İı ß ﬀ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'a\u0301\u0301\u0301',
  'ñ@é.test',
  'a@b',
  '@',
  'user1@example.test',
  'http://localhost:8787',
  'https://evil.example',
  'file:///etc/passwd',
  'data:text/html,<script>alert(1)</script>',
]

/** Values that pass the usual field rules, so that bodies also get past validation now and then. */
const PLAUSIBLE = [
  'Secret12',
  'Abcdef12',
  'Wrong123',
  'user1',
  'user2',
  'Dupont',
  'Jean-Pierre',
  'Lefèvre',
  'someone@example.test',
  'user1@example.test',
  'http://localhost:8787',
  'Pesage',
  'CONNEXION',
  'Firefox',
  '128.0',
  'a',
  '1',
  '2',
]

const HUGE = [
  'a'.repeat(100_000),
  'é'.repeat(100_000),
  '😀'.repeat(30_000),
  "' OR 1=1 -- ".repeat(5_000),
  '<script>'.repeat(10_000),
]

/** A salt whose expiry is still ahead, as the captcha challenges carry one (altcha). */
const liveSalt = (aheadSeconds = 120) => `abc?expires=${Math.floor(Date.now() / 1000) + aheadSeconds}&`

/**
 * The payload formats the captcha fields carry (DESIGN §6: base64 JSON, proof of work or question),
 * with hostile fields; the salt mostly carries a live expiry, to get past the expiry checks.
 */
const captchaPayload = fc
  .oneof(
    fc.record({
      algorithm: fc.oneof(
        fc.constantFrom('SHA-256', 'sha-256', 'SHA-1', 'SHA-512', ''),
        fc.constantFrom('MD5', 'FOO', 'HMAC', 'SHA-3', '<script>', "' OR 1=1"),
      ),
      challenge: fc.constantFrom('', 'a'.repeat(64), '<script>', "' OR 1=1"),
      number: fc.oneof(fc.integer(), fc.double(), fc.constant(0)),
      salt: fc.oneof(
        {
          weight: 1,
          arbitrary: fc.constantFrom('', 'abc', 'abc?', '?expires=', 'abc?expires=NaN&', 'abc?expires=-1&'),
        },
        { weight: 3, arbitrary: fc.integer({ min: 10, max: 500 }).map(liveSalt) },
      ),
      signature: fc.constantFrom('', 'x', 'a'.repeat(64)),
    }),
    fc.record({
      question: fc.constantFrom('', '1.2.3.4.5', '1.2.9999999999999.x.sig', 'a.b.c.d.e.f', '....'),
      answer: fc.constantFrom('3', '', ' 3 ', 'NaN', '1e3'),
    }),
  )
  .map((data) => utf8Base64(JSON.stringify(data)))

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PAYLOADS) },
  { weight: 3, arbitrary: fc.constantFrom(...PLAUSIBLE) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE) },
  { weight: 2, arbitrary: captchaPayload },
)

const plausibleString = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PLAUSIBLE) }, captchaPayload)

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`

/** JSON text of one value: right type with hostile content, wrong types, odd numbers, deep nesting. */
const jsonFragment: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'null',
      'true',
      'false',
      '0',
      '-1',
      '-0',
      '1.5',
      '1e999',
      '-1e999',
      '123456789012345678901234567890',
      '[]',
      '{}',
      '""',
      '"\\ud800"',
      '"\\udfff\\ud800"',
      '"\\u0000"',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom(deepArray(500), deepObject(500)) },
)

/** Candidates for a value the document's schema accepts (length, pattern, format). */
const CONFORMING_STRINGS = ['Secret12', 'user1', 'someone@example.test', 'http://localhost:8787', 'a']

/**
 * A value the schema of a field accepts, as a JSON value (a string for parameters): the rest of a
 * request stays valid while one field is poisoned, so the poison reaches past validation.
 */
function conforming(field: Field, id: string): unknown {
  const schema = field.schema
  const types = [schema?.type ?? 'string'].flat()
  if (types.includes('integer') || types.includes('number')) return Number(id)
  if (types.includes('boolean')) return true
  if (types.includes('array')) return []
  if (types.includes('object')) return {}
  const accepts = (value: string) => {
    if (value.length < (schema?.minLength ?? 0) || value.length > (schema?.maxLength ?? Number.POSITIVE_INFINITY)) {
      return false
    }
    if (schema?.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false
    if (schema?.format === 'uri' || schema?.format === 'url') return URL.canParse(value)
    if (schema?.format === 'email') return value.includes('@')
    return true
  }
  return CONFORMING_STRINGS.find(accepts) ?? CONFORMING_STRINGS[0]
}

/** JSON text for a property: mostly a value its schema accepts or a plausible one, now and then hostile. */
const plausibleFragment = (field: Field, id: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(JSON.stringify(conforming(field, id))) },
    { weight: 2, arbitrary: plausibleString.map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: jsonFragment },
  )

const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  'id',
  'admin',
  'actif',
  'supprime',
  'utilisateur_id',
  'password_hash',
  '😀',
  'a\u0000b',
]

const extraKey = fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ unit: 'binary', maxLength: 10 }))

/**
 * An object with the declared properties (some left out, some twice) and extra keys, as JSON text;
 * `plausible` fills the declared ones mostly with values their schema accepts.
 */
function declaredObject(fields: Field[], plausible: boolean, id: string) {
  const names = fields.map((f) => f.name)
  const caseChanged = names.flatMap((n) => (n.toUpperCase() === n ? [] : [n.toUpperCase()]))
  const fragmentOf = (field: Field) => (plausible ? plausibleFragment(field, id) : jsonFragment)
  return fc
    .tuple(
      fc.tuple(...fields.map((field) => fc.option(fragmentOf(field), { nil: undefined, freq: 5 }))),
      fc.array(
        fc.tuple(names.length ? fc.oneof(extraKey, fc.constantFrom(...names, ...caseChanged)) : extraKey, jsonFragment),
        { maxLength: 2 },
      ),
    )
    .map(([declared, extra]) => {
      const entries = [
        ...names.flatMap((name, i) => (declared[i] === undefined ? [] : [[name, declared[i]] as const])),
        ...extra,
      ]
      return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`
    })
}

/** Text that is not JSON: truncated, with trailing garbage, JavaScript-ish, unbalanced. */
function invalidJson(fields: Field[], id: string) {
  const valid = declaredObject(fields, true, id)
  return fc.oneof(
    fc.tuple(valid, fc.nat()).map(([text, n]) => text.slice(0, n % Math.max(1, text.length))),
    fc
      .tuple(valid, fc.constantFrom('}', ']', 'x', ',', '\u0000', '{}', ' garbage', '"'))
      .map(([text, tail]) => text + tail),
    valid.map((text) => text.replaceAll('"', "'")),
    fc.constantFrom(
      '{',
      '[',
      '"',
      '{"a":',
      '{"a":1,}',
      '{a:1}',
      'NaN',
      'undefined',
      '/* comment */ {}',
      '{"a":1}{"b":2}',
      '\uFEFF{}',
      '\u0000',
      '{"a":"\\x41"}',
      '{"a":"\\ud800"',
      '[1,2,3',
      "{'__proto__': 1}",
      '['.repeat(100_000),
    ),
  )
}

type Body = string | Uint8Array

function bodyArbitrary(fields: Field[], id: string): fc.Arbitrary<Body> {
  const names = fields.map((f) => f.name)
  return fc.oneof(
    { weight: 5, arbitrary: declaredObject(fields, false, id) },
    { weight: 5, arbitrary: declaredObject(fields, true, id) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: fc.constantFrom(deepArray(500), deepObject(500), deepArray(10_000), deepObject(10_000)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...(names.length ? names : ['a']))
        .map((name) => `{${JSON.stringify(name)}:${deepArray(500)}}`),
    },
    { weight: 3, arbitrary: invalidJson(fields, id) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `${' '.repeat(1_000_000)}{}`,
        JSON.stringify(Object.fromEntries((names.length ? names : ['a']).map((n) => [n, 'x'.repeat(100_000)]))),
        (names.length ? names : ['a']).map((n) => `${encodeURIComponent(n)}=x`).join('&'),
        '------x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n------x--\r\n',
      ),
    },
  )
}

const CONTENT_TYPES = [
  'application/json; charset=utf-7',
  'application/json; charset=utf-8',
  'text/plain',
  'text/html',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/x-www-form-urlencoded',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/jsonx',
  'application/xml',
  '*/*',
  'application/json, text/plain',
]

const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: hostileString.map(headerSafe) },
  { weight: 2, arbitrary: fc.constant(null) },
)

/** Percent-encoding that does not decode: a lone "%", a bad hex pair, truncated or invalid UTF-8. */
const BROKEN_PERCENT = ['%', '%%', '%zz', '%2', '100%', '%E0%A4%A', '%E0%A4', '%C0%AE', '%FF', '%ED%A0%80']

/** Path segments sent as they are (percent sequences, traversal, odd numbers). */
const RAW_SEGMENTS = [
  '%00',
  '%25',
  '%2525',
  '%2e%2e',
  '..',
  '.',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%C0%AE%C0%AE',
  '%EF%BF%BD',
  '%F0%9F%98%80',
  '-1',
  '0',
  '1e308',
  '1e21',
  '9007199254740993',
  '99999999999999999999999',
  '0x10',
  '0b1',
  '1.5',
  '1.0',
  'NaN',
  'Infinity',
  '-0',
  '%201',
  '1%20OR%201=1',
  "1'--",
  '1;DROP%20TABLE%20utilisateur',
  '<script>alert(1)</script>',
  '%3Cscript%3E',
  'updatePassword',
  '',
]

const pathSegment = (ids: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...ids) },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_PERCENT) },
    { weight: 4, arbitrary: hostileString.map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.integer(), fc.bigInt(), fc.double()).map((n) => encodeURIComponent(String(n))),
    },
  )

const RAW_QUERY_VALUES = [...BROKEN_PERCENT, '%00', '&', '==', '+', '%2B', '#fragment', '?', '%26x%3D1']

const queryValue = (ids: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...ids) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_QUERY_VALUES) },
    { weight: 5, arbitrary: hostileString.map(encodeURIComponent) },
  )

function queryArbitrary(declared: Field[], ids: string[]) {
  return fc
    .tuple(
      fc.tuple(
        ...declared.map(({ name }) =>
          fc.tuple(fc.constant(name), fc.array(queryValue(ids), { maxLength: 3 }), fc.boolean()),
        ),
      ),
      fc.array(fc.tuple(hostileString.map(encodeURIComponent), queryValue(ids)), { maxLength: 2 }),
    )
    .map(([known, unknown]) => {
      const pairs = [
        // A declared name: left out, once, or repeated; sometimes without "=".
        ...known.flatMap(([name, values, bare]) =>
          values.length === 0 && bare
            ? [encodeURIComponent(name)]
            : values.map((v) => `${encodeURIComponent(name)}=${v}`),
        ),
        ...unknown.map(([name, value]) => `${name}=${value}`),
      ]
      return pairs.length ? `?${pairs.join('&')}` : ''
    })
}

const REAL_USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'curl/8.5.0',
]

const optionalHeader = (name: string, value: fc.Arbitrary<string>) =>
  fc.option(
    value.map((v) => [name, v] as [string, string]),
    { nil: undefined, freq: 3 },
  )

function headersArbitrary(declared: Field[]) {
  return fc
    .tuple(
      optionalHeader(
        'Accept-Language',
        fc.oneof(
          fc.constantFrom('en', 'fr-FR,fr;q=0.9', 'en-US;q=abc', '*', ';;;,,,', 'xx-YY-ZZ-'),
          hostileString.map(headerSafe),
        ),
      ),
      optionalHeader(
        'CF-Connecting-IP',
        fc.oneof(
          fc.ipV4(),
          fc.ipV6(),
          fc.constantFrom(
            '::ffff:1.2.3.4',
            'fe80::1%eth0',
            '::',
            '::1',
            '999.999.999.999',
            '1.2.3.4, 5.6.7.8',
            '01.02.03.04',
            '0x7f.1',
            'localhost',
          ),
          hostileString.map(headerSafe),
        ),
      ),
      optionalHeader(
        'User-Agent',
        fc.oneof(
          fc.constantFrom(...REAL_USER_AGENTS, `Mozilla/5.0 ${'A'.repeat(100_000)}`, 'Firefox/'.repeat(10_000)),
          hostileString.map(headerSafe),
        ),
      ),
      optionalHeader('Origin', fc.constantFrom('https://evil.example', 'null', 'http://localhost:8787')),
      fc.tuple(...declared.map(({ name }) => optionalHeader(name, hostileString.map(headerSafe)))),
    )
    .map(([language, ip, agent, origin, declaredHeaders]) =>
      [language, ip, agent, origin, ...declaredHeaders].filter((h): h is [string, string] => h !== undefined),
    )
}

// ---------------------------------------------------------------------------------------------
// Callers

type Identity = 'anonymous' | 'garbage' | 'forged' | 'user' | 'admin' | 'application' | 'service'
type AuthShape = 'bearer' | 'lowercase' | 'double-space' | 'no-scheme' | 'suffixed' | 'basic'

const identity: fc.Arbitrary<Identity> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('anonymous' as const) },
  { weight: 1, arbitrary: fc.constant('garbage' as const) },
  { weight: 1, arbitrary: fc.constant('forged' as const) },
  { weight: 3, arbitrary: fc.constant('user' as const) },
  { weight: 2, arbitrary: fc.constant('admin' as const) },
  { weight: 2, arbitrary: fc.constant('application' as const) },
  { weight: 2, arbitrary: fc.constant('service' as const) },
)

const authShape: fc.Arbitrary<AuthShape> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('bearer' as const) },
  { weight: 1, arbitrary: fc.constantFrom('lowercase', 'double-space', 'no-scheme', 'suffixed', 'basic' as const) },
)

const garbageAuthorization = fc.oneof(
  hostileString.map(headerSafe),
  hostileString.map((s) => `Bearer ${headerSafe(s)}`),
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer ..', 'Bearer null', 'Basic dXNlcjpwYXNz', 'Bearer eyJ'),
)

/** Tokens a forger can make: unsigned, wrong key, expired, odd claims, another user's session. */
const FORGERIES = [
  'alg-none',
  'wrong-secret',
  'expired',
  'sub-not-a-number',
  'sub-huge',
  'unknown-sid',
  'admin-claim-on-user-session',
  'other-user-sid',
  'wrong-issuer',
  'hs512',
  'app-not-a-number',
  'unknown-app',
] as const

type Forgery = (typeof FORGERIES)[number]

const base64url = (text: string) => utf8Base64(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

// ---------------------------------------------------------------------------------------------
// A fuzzed request

type FuzzRequest = {
  method: string
  path: string
  query: string
  identity: Identity
  authShape: AuthShape
  garbageAuthorization: string
  forgery: Forgery
  headers: [string, string][]
  contentType: string | null
  body: Body | null
}

function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === null
      ? 'none'
      : typeof r.body === 'string'
        ? JSON.stringify(excerpt(r.body))
        : `bytes [${[...r.body.slice(0, 32)].join(',')}${r.body.length > 32 ? ',…' : ''}] (${r.body.length} bytes)`
  const caller =
    r.identity === 'garbage'
      ? `Authorization ${JSON.stringify(excerpt(r.garbageAuthorization, 120))}`
      : r.identity === 'forged'
        ? `forged token (${r.forgery}), ${r.authShape}`
        : r.identity === 'anonymous'
          ? 'anonymous'
          : `valid ${r.identity} session, ${r.authShape}`
  const headers = r.headers.map(([k, v]) => `${k}: ${JSON.stringify(excerpt(v, 120))}`).join('; ')
  return [
    `${r.method} ${excerpt(r.path + r.query, 400)}`,
    `caller: ${caller}`,
    `Content-Type: ${r.contentType === null ? 'none' : JSON.stringify(r.contentType)}`,
    `headers: ${headers || 'none'}`,
    `body: ${body}`,
  ].join('\n  ')
}

/** Keeps fast-check's counterexample readable (bodies can be a megabyte). */
const readable = (r: FuzzRequest): FuzzRequest =>
  Object.defineProperty(r, fc.toStringMethod, { value: () => `\n  ${describeRequest(r)}\n`, enumerable: false })

const BODYLESS = new Set(['GET', 'HEAD'])

function requestArbitrary(operation: DocumentedOperation, method: string, ids: string[]): fc.Arbitrary<FuzzRequest> {
  const segments = fc.tuple(...operation.pathParams.map(() => pathSegment(ids)))
  return fc
    .record({
      segments,
      query: queryArbitrary(operation.queryParams, ids),
      identity,
      authShape,
      garbageAuthorization,
      forgery: fc.constantFrom(...FORGERIES),
      headers: headersArbitrary(operation.headerParams),
      contentType: BODYLESS.has(method)
        ? fc.option(fc.constantFrom('application/json', ...CONTENT_TYPES), { nil: null })
        : contentType,
      body: BODYLESS.has(method) ? fc.constant(null) : bodyArbitrary(operation.bodyProperties, ids[0] ?? '1'),
    })
    .map(({ segments: values, ...rest }) => {
      let path = operation.path
      operation.pathParams.forEach(({ name }, i) => {
        path = path.replace(`{${name}}`, values[i] ?? '')
      })
      return readable({ method, path, ...rest })
    })
}

/** A hostile value, in the form each place of a request takes it (raw in the URL, JSON in a body). */
type Poison = { segment: string; query: string; json: string }

function poisons(): Poison[] {
  const payload = utf8Base64(
    JSON.stringify({ algorithm: 'FOO', challenge: 'x', number: 1, salt: liveSalt(), signature: 'x' }),
  )
  const huge = 'a'.repeat(100_000)
  return [
    // Broken percent-encoding, raw in the URL.
    { segment: '%E0%A4%A', query: '%E0%A4%A', json: '"%E0%A4%A"' },
    { segment: '%', query: '%', json: '"%"' },
    // A base64 JSON payload (the captcha format) naming a digest algorithm nobody implements.
    { segment: encodeURIComponent(payload), query: encodeURIComponent(payload), json: JSON.stringify(payload) },
    { segment: '%00', query: '%00%ED%A0%80', json: '"\\u0000\\ud800"' },
    { segment: huge, query: huge, json: JSON.stringify(huge) },
    {
      segment: encodeURIComponent("1' OR '1'='1"),
      query: encodeURIComponent("' OR 1=1 --"),
      json: JSON.stringify("' OR 1=1; DROP TABLE utilisateur; --"),
    },
    { segment: '1e308', query: '9007199254740993', json: '1e999' },
    // Names every object inherits, as values: a lookup table indexed by input must not find them.
    { segment: '__proto__', query: 'constructor', json: '"__proto__"' },
    { segment: 'toString', query: 'hasOwnProperty', json: '"constructor"' },
    { segment: '%5B%5D', query: '', json: deepArray(500) },
  ]
}

type Place = 'path' | 'query' | 'header' | 'body'

/**
 * The seed corpus of an operation, run before its random requests: each poison in each field the
 * document declares (path and query parameters, headers, body properties), the other fields holding
 * values their schema accepts, for every kind of caller the operation tells apart. It makes the
 * classic traps certain to be tried, past validation, on every run.
 */
function corpus(operation: DocumentedOperation, id: string): FuzzRequest[] {
  const { method } = operation
  const callers: Identity[] = operation.secured ? ['user', 'admin', 'application', 'service'] : ['anonymous']
  const bodyFields =
    operation.bodyProperties.length || BODYLESS.has(method) ? operation.bodyProperties : [{ name: 'a' }]
  const targets: [Place, Field][] = [
    ...operation.pathParams.map((f) => ['path', f] as [Place, Field]),
    ...operation.queryParams.map((f) => ['query', f] as [Place, Field]),
    ...operation.headerParams.map((f) => ['header', f] as [Place, Field]),
    ...(BODYLESS.has(method) ? [] : bodyFields.map((f) => ['body', f] as [Place, Field])),
  ]
  const valueIn = (place: Place, field: Field, target: [Place, Field] | null, poison: Poison) => {
    const poisoned = target !== null && target[0] === place && target[1].name === field.name
    if (place === 'body') return poisoned ? poison.json : JSON.stringify(conforming(field, id))
    if (place === 'path') return poisoned ? poison.segment : encodeURIComponent(String(conforming(field, id)))
    if (place === 'query') return poisoned ? poison.query : encodeURIComponent(String(conforming(field, id)))
    return poisoned ? headerSafe(poison.json) : String(conforming(field, id))
  }
  const build = (target: [Place, Field] | null, poison: Poison, identity: Identity) => {
    let path = operation.path
    for (const field of operation.pathParams)
      path = path.replace(`{${field.name}}`, valueIn('path', field, target, poison))
    const pairs = operation.queryParams.map(
      (f) => `${encodeURIComponent(f.name)}=${valueIn('query', f, target, poison)}`,
    )
    const body = BODYLESS.has(method)
      ? null
      : `{${bodyFields.map((f) => `${JSON.stringify(f.name)}:${valueIn('body', f, target, poison)}`).join(',')}}`
    return readable({
      method,
      path,
      query: pairs.length ? `?${pairs.join('&')}` : '',
      identity,
      authShape: 'bearer',
      garbageAuthorization: '',
      forgery: 'alg-none',
      headers: operation.headerParams.map((f) => [f.name, valueIn('header', f, target, poison)] as [string, string]),
      contentType: body === null ? null : 'application/json',
      body,
    })
  }
  const all = poisons()
  if (targets.length === 0) return callers.map((identity) => build(null, all[0] as Poison, identity))
  return all.flatMap((poison) =>
    targets.flatMap((target) => callers.map((identity) => build(target, poison, identity))),
  )
}

/** The query parameters that are search boxes: what they hold is looked for with LIKE in D1. */
const SEARCH_PARAMS = ['q', 'recherche']

/**
 * Searches past D1's limits (100 bound values a statement, LIKE patterns of 50 bytes), each within
 * the 100 characters a search box takes: many words, long words, multi-byte and escaped letters.
 */
const LONG_SEARCHES = [
  Array.from({ length: 40 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' '),
  Array.from({ length: 25 }, () => 'abc').join(' '),
  'x'.repeat(60),
  'é'.repeat(30),
  'œ'.repeat(30),
  '%'.repeat(30),
  '😀'.repeat(25),
  `${'é'.repeat(30)} ${'x'.repeat(60)}`,
  Array.from({ length: 12 }, () => 'ééééééé').join(' '),
]

/**
 * Long searches in every search parameter of an operation, by an administrator, with the parameter
 * alone (the whole list) and with a page: the rest of the request valid, so that they reach D1.
 * `id` fills the path (a structure of the administrator's scope).
 */
function searchCorpus(operation: DocumentedOperation, id: string): FuzzRequest[] {
  let path = operation.path
  for (const field of operation.pathParams) path = path.replace(`{${field.name}}`, id)
  return operation.queryParams
    .filter((field) => SEARCH_PARAMS.includes(field.name))
    .flatMap((field) =>
      LONG_SEARCHES.flatMap((search) => {
        const q = `${field.name}=${encodeURIComponent(search)}`
        const paged = operation.queryParams.some((f) => f.name === 'page') ? [`?page=1&${q}`] : []
        return [`?${q}`, ...paged].map((query) =>
          readable({
            method: operation.method,
            path,
            query,
            identity: 'admin',
            authShape: 'bearer',
            garbageAuthorization: '',
            forgery: 'alg-none',
            headers: [],
            contentType: null,
            body: null,
          }),
        )
      }),
    )
}

// ---------------------------------------------------------------------------------------------
// Running one request and checking the properties

let plainUser: { id: number }
let adminUser: { id: number }
/** A service account of Direction Nord (administrator, every scope): the REST API's and SCIM's program. */
let serviceAccount: { id: number }

async function forgedToken(forgery: Forgery): Promise<string> {
  const { sid } = await sessionFor(plainUser.id)
  const iat = Math.floor(Date.now() / 1000)
  const claims = {
    sub: String(plainUser.id),
    admin: false,
    domain: ORIGIN,
    sid,
    iss: 'portail',
    aud: 'portail',
    iat,
    exp: iat + 300,
  }
  const sign = (payload: Record<string, unknown>, secret = env.JWT_SECRET, algorithm = 'HS256') =>
    jwt.sign(payload, secret, { algorithm })
  switch (forgery) {
    case 'alg-none':
      return `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify({ ...claims, admin: true }))}.`
    case 'wrong-secret':
      return sign(claims, 'not-the-secret-0123456789abcdef0123456789')
    case 'expired':
      return signAccessToken(env.JWT_SECRET, claims, Date.now() - 3_600_000)
    case 'sub-not-a-number':
      return sign({ ...claims, sub: 'abc' })
    case 'sub-huge':
      return sign({ ...claims, sub: '1e308' })
    case 'unknown-sid':
      return sign({ ...claims, sid: crypto.randomUUID() })
    case 'admin-claim-on-user-session':
      return sign({ ...claims, admin: true })
    case 'other-user-sid':
      return sign({ ...claims, sub: String(adminUser.id), admin: true })
    case 'wrong-issuer':
      return sign({ ...claims, iss: 'someone-else' })
    case 'hs512':
      return sign(claims, env.JWT_SECRET, 'HS512')
    case 'app-not-a-number':
      return sign({ ...claims, app: 'x' })
    case 'unknown-app':
      return sign({ ...claims, app: 99_999 })
  }
}

/**
 * The Authorization header of a request. Valid sessions are opened afresh for every request (without
 * signing in): a fuzzed request may end the one it carries (logout, a password change), and must not
 * leave the next requests unauthenticated.
 */
async function authorization(r: FuzzRequest): Promise<string | null> {
  let token: string
  switch (r.identity) {
    case 'anonymous':
      return null
    case 'garbage':
      return r.garbageAuthorization
    case 'forged':
      token = await forgedToken(r.forgery)
      break
    case 'user':
      token = (await sessionFor(plainUser.id)).accessToken
      break
    case 'admin':
      token = (await sessionFor(adminUser.id)).accessToken
      break
    case 'application':
      token = (await sessionFor(plainUser.id, { application: 1 })).accessToken
      break
    case 'service':
      // What the client credentials grant signs (tests/api/machines/service-accounts.test.ts), without its rate.
      token = await signAccessToken(env.JWT_SECRET, {
        sub: String(serviceAccount.id),
        admin: true,
        domain: ORIGIN,
        sid: 'service',
        cs: 'api logs scim',
      })
      break
  }
  switch (r.authShape) {
    case 'bearer':
      return `Bearer ${token}`
    case 'lowercase':
      return `bearer ${token}`
    case 'double-space':
      return `Bearer  ${token}`
    case 'no-scheme':
      return token
    case 'suffixed':
      return `Bearer ${token}.x`
    case 'basic':
      return `Basic ${token}`
  }
}

/** The problems with the answer to one request; empty when the three properties hold. */
async function check(r: FuzzRequest): Promise<string[]> {
  const headers = new Headers()
  for (const [name, value] of r.headers) headers.append(name, value)
  const auth = await authorization(r)
  if (auth !== null) headers.set('Authorization', auth)
  if (r.contentType !== null) headers.set('Content-Type', r.contentType)
  // Bytes, not text: a string body would get a Content-Type of its own.
  const bytes = typeof r.body === 'string' ? new TextEncoder().encode(r.body) : r.body
  const body = bytes === null ? null : new Uint8Array(bytes)
  const request = new Request(`${ORIGIN}${r.path}${r.query}`, { method: r.method, headers, body })

  const before = await writes()
  const ctx = createExecutionContext()
  // The service account's calls are not limited here: a fuzz run makes more than a program's minute.
  const response = await app.fetch(request, { ...env, SERVICE_ACCOUNT_RATE_PER_MINUTE: '1000000' }, ctx)
  // Mail delivery and any other work left running after the answer, as the runtime would wait for it.
  await waitOnExecutionContext(ctx)
  const text = await response.text()
  const after = await writes()

  const problems: string[] = []
  const seen = `${response.status} ${response.headers.get('Content-Type') ?? '(no Content-Type)'} ${JSON.stringify(excerpt(text, 500))}`
  if (response.status >= 500 && !(response.status === 501 && documented501(r.method, r.path))) {
    problems.push(`a ${response.status} answer: ${seen}`)
  }
  if (response.status >= 400) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    const record = parsed as Record<string, unknown> | undefined
    const json =
      /^application\/(scim\+)?json/.test(response.headers.get('Content-Type') ?? '') &&
      typeof record === 'object' &&
      record !== null &&
      !Array.isArray(record)
    if (SCIM.test(r.path)) {
      const keys = Object.keys(record ?? {}).filter((key) => key !== 'scimType')
      const shaped =
        json &&
        keys.sort().join(',') === 'detail,schemas,status' &&
        response.headers.get('Content-Type') === 'application/scim+json' &&
        String(record.status) === String(response.status)
      if (!shaped) problems.push(`not SCIM's error body { schemas, status, detail }: ${seen}`)
    } else if (OAUTH_PROTOCOL.test(r.path)) {
      const shaped =
        json &&
        Object.keys(record).sort().join(',') === 'error,error_description' &&
        typeof record.error === 'string' &&
        typeof record.error_description === 'string'
      if (!shaped) problems.push(`not OAuth's error body { error, error_description }: ${seen}`)
    } else {
      const shaped =
        json &&
        Object.keys(record).sort().join(',') === 'attributs,businessCode,message' &&
        typeof record.businessCode === 'string' &&
        typeof record.message === 'string' &&
        Array.isArray(record.attributs)
      if (!shaped) problems.push(`not the error body { businessCode, message, attributs }: ${seen}`)
    }
    const written = writtenTables(before, after)
    if (written.length > 0) problems.push(`a rejected request (${seen}) wrote rows of: ${written.join(', ')}`)
  }
  return problems
}

/** The test's own timeout around a run of `requests` requests: only a stuck run reaches it. */
const timeoutOf = (requests: number) => requests * STUCK_MS_PER_REQUEST + REPORT_MS

/**
 * Runs the seeds then `runs` random requests, each checked; fails on the first problem found, and
 * when the run tried fewer requests than it planned.
 */
async function fuzz(arbitrary: fc.Arbitrary<FuzzRequest>, seeds: FuzzRequest[] = [], runs = RUNS_PER_OPERATION) {
  // The seeds come first and count among the runs.
  const planned = seeds.length + runs
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (r) => {
      const problems = await check(r)
      if (problems.length > 0) {
        throw new Error(`${problems.join('\n  ')}\nfor the request\n  ${describeRequest(r)}`)
      }
    }),
    {
      examples: seeds.map((seed) => [seed] as [FuzzRequest]),
      numRuns: planned,
    },
  )
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'a request failed')
  expect(
    { ran: details.numRuns, interrupted: details.interrupted },
    `ran ${details.numRuns} of ${planned} requests`,
  ).toEqual({ ran: planned, interrupted: false })
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  await createOrganisation()
  // No password: sessions are opened without signing in, and no fuzzed request can guess one (a
  // password change or a sign-in would otherwise spend a password hash on every lucky guess).
  plainUser = await createUser({ password: null, postes: [currentPost(4, 2)] })
  adminUser = await createUser({ password: null, admin: true, postes: [currentPost(2, 1)] })
  serviceAccount = await env.DB.prepare(
    `INSERT INTO compte_service (nom, structure_id, admin, scopes, client_id, secret_hash, domain)
     VALUES ('Fuzz', 2, 1, 'api logs scim', 'cs-fuzz', NULL, ?) RETURNING id`,
  )
    .bind(ORIGIN)
    .first<{ id: number }>()
    .then((row) => row ?? { id: 0 })
})

/** Random requests with the methods the document does not declare, all paths together. */
const UNDECLARED_RUNS = 60

/** The structure of the administrator's post (Direction Nord), whose users they may search. */
const ADMIN_STRUCTURE = '2'

/** Ids worth trying besides the hostile ones: the callers', and the first rows of every table. */
const ids = () => [String(plainUser.id), String(adminUser.id), '1', '2', '3', '4']

describe('Fuzzing every operation of the OpenAPI document', () => {
  it('reads the operations from the document', () => {
    expect(documentResponse.status).toBe(200)
    expect(openapi.openapi).toMatch(/^3\.1\./)
    const listed = operations.map((o) => `${o.method} ${o.path}`)
    expect(listed.length).toBeGreaterThan(0)
    expect(listed).toContain('POST /portail-backend/rest/public/bd/login')
    const login = operations.find((o) => o.method === 'POST' && o.path.endsWith('/rest/public/bd/login'))
    expect(login?.bodyProperties.map((f) => f.name)).toEqual(expect.arrayContaining(['identifiant', 'motDePasse']))
  })

  it('sees a write in the counter of writes every request is checked with (the third property is not vacuous), and no update that changes nothing', async () => {
    const before = await writes()
    const { accessToken } = await sessionFor(plainUser.id)
    const response = await call('/rest/bd/logs/', {
      method: 'POST',
      token: accessToken,
      body: JSON.stringify({ nomLog: 'Pesage' }),
    })
    expect(response.status).toBe(201)
    expect(writtenTables(before, await writes())).toEqual(['log', 'refresh_token'])
    const unchanged = await writes()
    await env.DB.prepare('UPDATE utilisateur SET nom = nom WHERE id = ?').bind(plainUser.id).run()
    expect(writtenTables(unchanged, await writes())).toEqual([])
    await env.DB.prepare("UPDATE utilisateur SET nom = nom || 'x' WHERE id = ?").bind(plainUser.id).run()
    await env.DB.prepare('UPDATE utilisateur SET nom = substr(nom, 1, length(nom) - 1) WHERE id = ?')
      .bind(plainUser.id)
      .run()
    expect(writtenTables(unchanged, await writes())).toEqual(['utilisateur'])
  })

  it('watches every table of the schema but the bookkeeping', () => {
    expect(DOMAIN_TABLES).toEqual(expect.arrayContaining(['utilisateur', 'log', 'outbox', 'utilisateur_liste_total']))
    expect(DOMAIN_TABLES).not.toEqual(expect.arrayContaining(['rate_limit']))
  })

  for (const operation of operations) {
    // The seeds' count does not depend on the ids they carry: the budget is known before they are.
    const planned = corpus(operation, '1').length + searchCorpus(operation, ADMIN_STRUCTURE).length
    it(
      `${operation.method} ${operation.path}: never a 5xx, always the error body, no write when rejected`,
      async () => {
        await fuzz(requestArbitrary(operation, operation.method, ids()), [
          ...corpus(operation, String(plainUser.id)),
          ...searchCorpus(operation, ADMIN_STRUCTURE),
        ])
      },
      timeoutOf(planned + RUNS_PER_OPERATION),
    )
  }

  it(
    'the documented paths with methods they do not declare',
    async () => {
      const declared = new Map<string, Set<string>>()
      for (const o of operations) declared.set(o.path, (declared.get(o.path) ?? new Set()).add(o.method))
      const pairs = operations.flatMap((o) =>
        ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']
          .filter((method) => !declared.get(o.path)?.has(method))
          .map((method) => [o, method] as const),
      )
      const arbitrary = fc
        .constantFrom(...pairs)
        .chain(([operation, method]) => requestArbitrary(operation, method, ids()))
      await fuzz(arbitrary, [], UNDECLARED_RUNS)
    },
    timeoutOf(UNDECLARED_RUNS),
  )
})
