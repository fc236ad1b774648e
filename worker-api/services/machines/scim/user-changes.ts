import { SCIM_PATCH, SCIM_PORTAL_USER, SCIM_USER } from '../../../contract/machines/scim'
import { MAIL_PATTERN } from '../../../contract/mail-rules'
import { invalidPath, invalidValue, ScimError } from './errors'

/**
 * What a SCIM write asks of a user, read from its body before anything is read from D1: a resource (POST, PUT) or
 * the operations of a PATCH (RFC 7644 §3.5.2), applied in order to the attributes the portal holds. What the portal
 * does not hold (a title, an address, the enterprise extension) is left aside, as provisioning clients send the
 * attributes of their whole mapping; what it holds is checked when the user's new state is known.
 */

/** A post of the portal's extension as written: ids as SCIM's strings, ISO dates. */
export type WantedPoste = { structure: number; fonction: number; dateDebut: string; dateFin: string }

export type UserChanges = {
  /** The address, from `emails` (or a resource's `userName` when it is one and `emails` is left out: `resourceChanges`). */
  mail?: string
  /** The login one signs in with: `userName` (Entra ID sends the user principal name, often not the mail). */
  userName?: string
  /** `mail` is the userName of a resource without `emails`: the address only for a user whose login it is. */
  mailIsUserName?: true
  nom?: string
  prenom?: string
  actif?: boolean
  externalId?: string | null
  /** The posts: the current and future ones become `set`, or `add` joins them. */
  postes?: { mode: 'set' | 'add'; list: WantedPoste[] }
}

/** Most posts a write names (each is read and written in the write's one batch). */
export const SCIM_MAX_POSTES = 20
/** Most operations a PATCH holds. */
export const SCIM_MAX_OPERATIONS = 50
/** Most characters of a login: what the sign-in form takes as its identifier (contract/sign-in/auth.ts). */
export const LOGIN_MAX = 100

const EXTENSION = SCIM_PORTAL_USER.toLowerCase()
const CORE = `${SCIM_USER.toLowerCase()}:`

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function text(value: unknown, attribute: string, max = 200): string {
  if (typeof value !== 'string') throw invalidValue(`${attribute} is a string`)
  if (value.length > max) throw invalidValue(`${attribute} holds at most ${max} characters`)
  return value
}

/** `active` as a boolean, or as the strings "True" and "False" Entra ID sends. */
function flag(value: unknown): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true'
  throw invalidValue('active is a boolean')
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/
function day(value: unknown, attribute: string): string {
  const given = text(value, attribute, 40)
  // A date-time names its day (RFC 7643 dateTime); the portal keeps days.
  const candidate = given.slice(0, 10)
  const parsed = new Date(`${candidate}T00:00:00Z`)
  if (!ISO_DAY.test(candidate) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== candidate) {
    throw invalidValue(`${attribute} is a date, YYYY-MM-DD`)
  }
  return candidate
}

function reference(value: unknown, attribute: string): number {
  const given = isObject(value) ? value.value : value
  const id = typeof given === 'number' ? String(given) : given
  if (typeof id !== 'string' || !/^\d{1,15}$/.test(id))
    throw invalidValue(`${attribute}.value is the id of a ${attribute}`)
  return Number(id)
}

function postes(value: unknown): WantedPoste[] {
  const list = Array.isArray(value) ? value : [value]
  if (list.length > SCIM_MAX_POSTES) throw invalidValue(`A user holds at most ${SCIM_MAX_POSTES} posts`)
  return list.map((poste, n) => {
    if (!isObject(poste)) throw invalidValue(`postes[${n}] is an object`)
    const wanted = {
      structure: reference(poste.structure, 'structure'),
      fonction: reference(poste.fonction, 'fonction'),
      dateDebut: day(poste.dateDebut, 'dateDebut'),
      dateFin: day(poste.dateFin, 'dateFin'),
    }
    if (wanted.dateFin < wanted.dateDebut) throw invalidValue(`postes[${n}]: dateFin comes before dateDebut`)
    return wanted
  })
}

/** A login as the sign-in form can take it: trimmed, 1 to `LOGIN_MAX` characters, no control character. */
function login(value: unknown): string {
  const given = text(value, 'userName').trim()
  if (given === '' || given.length > LOGIN_MAX || /\p{Cc}/u.test(given)) {
    throw invalidValue(`userName (the login) holds 1 to ${LOGIN_MAX} characters, none of them a control character`)
  }
  return given
}

/** The address of `emails`: the primary one, else the work one, else the first. */
function mailOf(value: unknown): string {
  const list = Array.isArray(value) ? value : [value]
  if (list.length === 0) throw invalidValue('A user has an address (emails)')
  if (list.length > 10) throw invalidValue('emails holds at most 10 addresses')
  const entries = list.map((entry): Record<string, unknown> => (isObject(entry) ? entry : { value: entry }))
  const chosen =
    entries.find((entry) => entry.primary === true || entry.primary === 'True' || entry.primary === 'true') ??
    entries.find((entry) => typeof entry.type === 'string' && entry.type.toLowerCase() === 'work') ??
    entries[0]
  return text(chosen?.value, 'emails.value').trim()
}

/** Sets one attribute (its name folded to lower case, prefixes dropped); an attribute the portal does not hold is left. */
function set(changes: UserChanges, attribute: string, value: unknown, op: 'add' | 'replace') {
  switch (attribute) {
    case 'username':
      changes.userName = login(value)
      return
    case 'emails':
      changes.mail = mailOf(value)
      return
    case 'emails.value':
      changes.mail = text(value, 'emails.value').trim()
      return
    case 'name':
      if (!isObject(value)) throw invalidValue('name is an object')
      for (const [key, part] of Object.entries(value)) set(changes, `name.${key.toLowerCase()}`, part, op)
      return
    case 'name.givenname':
      changes.prenom = text(value, 'name.givenName')
      return
    case 'name.familyname':
      changes.nom = text(value, 'name.familyName')
      return
    case 'active':
      changes.actif = flag(value)
      return
    case 'externalid':
      changes.externalId = value === null ? null : text(value, 'externalId')
      return
    case EXTENSION:
      if (!isObject(value)) throw invalidValue(`${SCIM_PORTAL_USER} is an object`)
      for (const [key, part] of Object.entries(value)) set(changes, `${EXTENSION}:${key.toLowerCase()}`, part, op)
      return
    case `${EXTENSION}:postes`: {
      const list = postes(value)
      const earlier = op === 'add' && changes.postes ? changes.postes : null
      changes.postes = earlier
        ? { mode: earlier.mode, list: [...earlier.list, ...list] }
        : { mode: op === 'add' ? 'add' : 'set', list }
      if (changes.postes.list.length > SCIM_MAX_POSTES) {
        throw invalidValue(`A user holds at most ${SCIM_MAX_POSTES} posts`)
      }
      return
    }
    default:
      // id, meta, schemas, displayName (the portal's, from the names), and what the portal does not hold.
      return
  }
}

/** An attribute name as SCIM compares them: case folded, the core schema's prefix dropped. */
function normalised(name: string): string {
  const lower = name.toLowerCase()
  return lower.startsWith(CORE) ? lower.slice(CORE.length) : lower
}

/** A resource's attributes (POST, PUT, a path-less PATCH value), keys perhaps dotted as Entra ID writes them. */
function setAll(changes: UserChanges, resource: Record<string, unknown>, op: 'add' | 'replace') {
  for (const [key, value] of Object.entries(resource)) set(changes, normalised(key), value, op)
}

/**
 * POST and PUT: the user as the resource describes them; `userName` and the names are required, and the address is
 * `emails`' or, left out, the userName when it is one.
 */
export function resourceChanges(body: unknown): UserChanges {
  if (!isObject(body)) throw new ScimError(400, 'The body is a User resource', 'invalidSyntax')
  const changes: UserChanges = {}
  setAll(changes, body, 'replace')
  if (changes.userName === undefined) throw invalidValue('userName is required')
  if (changes.nom === undefined || changes.prenom === undefined) {
    throw invalidValue('name.givenName and name.familyName are required')
  }
  // An absent `active` is an active user (RFC 7643 leaves it to the provider; the screens' default).
  changes.actif ??= true
  // PUT replaces: an absent externalId is none.
  if (!('externalId' in changes)) changes.externalId = null
  // Without `emails`, a userName that is an address names it too, as clients that took userName for the address send it.
  if (changes.mail === undefined && MAIL_PATTERN.test(changes.userName)) {
    changes.mail = changes.userName
    changes.mailIsUserName = true
  }
  return changes
}

/** A path's filter on `emails`, as provisioning clients write it: `[type eq "work"]`, `[primary eq true]`. */
const EMAILS_FILTER = /^emails\[\s*(type|primary|value)\s+eq\s+("[^"\]]*"|true|false)\s*\](?:\.(value))?$/

/** A PATCH's path, normalised to the names `set` knows, or 400 invalidPath. */
function patchPath(path: string): string {
  if (path.length > 200) throw invalidPath('A path holds at most 200 characters')
  const name = normalised(path.trim())
  if (name.startsWith('emails[')) {
    const match = EMAILS_FILTER.exec(name)
    if (!match) throw invalidPath(`The path ${path} cannot be read (emails[type eq "work"].value is)`)
    return match[3] ? 'emails.value' : 'emails'
  }
  if (name.includes('[') || name.includes(']')) throw invalidPath(`The path ${path} cannot be read here`)
  if (!/^[a-z0-9:._$-]+$/.test(name)) throw invalidPath(`The path ${path} cannot be read`)
  return name
}

/** What cannot be removed from a user: the portal requires it. */
const REQUIRED = new Set(['username', 'emails', 'emails.value', 'name', 'name.givenname', 'name.familyname', 'active'])

/** PATCH (RFC 7644 §3.5.2): its operations in order, as changes. */
export function patchChanges(body: unknown): UserChanges {
  if (!isObject(body) || !Array.isArray(body.Operations)) {
    throw new ScimError(400, `The body is a PatchOp (${SCIM_PATCH}) with its Operations`, 'invalidSyntax')
  }
  if (body.Operations.length === 0) throw invalidValue('A PATCH holds at least one operation')
  if (body.Operations.length > SCIM_MAX_OPERATIONS) {
    throw new ScimError(400, `A PATCH holds at most ${SCIM_MAX_OPERATIONS} operations`, 'tooMany')
  }
  const changes: UserChanges = {}
  for (const operation of body.Operations) {
    if (!isObject(operation)) throw new ScimError(400, 'An operation is an object', 'invalidSyntax')
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : ''
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, 'An operation is add, replace or remove', 'invalidSyntax')
    }
    const path = operation.path === undefined || operation.path === '' ? null : operation.path
    if (path !== null && typeof path !== 'string') throw invalidPath('A path is a string')
    if (op === 'remove') {
      if (path === null) throw new ScimError(400, 'A remove names its path', 'noTarget')
      const name = patchPath(path)
      if (REQUIRED.has(name)) throw new ScimError(400, `${path} is required: it cannot be removed`, 'mutability')
      if (name === 'externalid') changes.externalId = null
      else if (name === `${EXTENSION}:postes`) changes.postes = { mode: 'set', list: [] }
      continue
    }
    if (path === null) {
      if (!isObject(operation.value)) throw invalidValue('A path-less operation holds an object of attributes')
      setAll(changes, operation.value, op)
    } else {
      const name = patchPath(path)
      if (name === 'id' || name.startsWith('meta')) throw new ScimError(400, `${path} is read-only`, 'mutability')
      set(changes, name, operation.value, op)
    }
  }
  return changes
}
