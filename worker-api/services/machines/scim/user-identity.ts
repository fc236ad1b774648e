import { mailSchema, nameSchema } from '../../../contract/organisation/user'
import type { DB } from '../../../db/client'
import { holderOf } from '../../organisation/profile'
import { invalidValue, ScimError } from './errors'

/**
 * Who a SCIM write names: `userName` is the login one signs in with, `emails` the address the portal writes to. Microsoft
 * Entra ID sends the user principal name and the mail, which differ in many tenants; clients written when the portal's
 * login was the address send the address in both, or in userName alone.
 */

/** Another account holding `name` as its address or login (`holderOf`, the profile's check), when a write names one. */
export const holders = (db: DB, name: string | undefined, id: number) =>
  name === undefined ? null : holderOf(db, id, name)

export const uniqueness = (name: string) => new ScimError(409, `Another user holds ${name}`, 'uniqueness')

/** The 409 of a write the unique indexes stopped: another request took the login or the address meanwhile. */
export const raced = (error: unknown, names: { login: string; mail: string }) =>
  uniqueness(String(error).includes('login') ? names.login : names.mail)

const WHY: Record<string, string> = {
  'validation.required': 'is required',
  'validation.nameLength': 'holds 3 to 50 characters',
  'validation.mailMax': 'holds at most 50 characters',
  'validation.mail': 'is not a mail address',
}

/** A value the request gives, checked as the screens check it; what it leaves is kept as stored. */
function checkedValue(attribute: string, schema: typeof mailSchema, given: string | undefined, stored: string) {
  if (given === undefined) return stored
  const result = schema.safeParse(given)
  if (!result.success)
    throw invalidValue(`${attribute} ${WHY[result.error.issues[0]?.message ?? ''] ?? 'is not valid'}`)
  return result.data
}

/** The names and address a user ends with: those the request gives checked, the others as they are. */
export function checkedIdentity(
  given: { mail: string | undefined; nom: string | undefined; prenom: string | undefined },
  stored: { mail: string; nom: string; prenom: string } = { mail: '', nom: '', prenom: '' },
) {
  return {
    mail: checkedValue('emails.value', mailSchema, given.mail, stored.mail),
    nom: checkedValue('name.familyName', nameSchema, given.nom, stored.nom),
    prenom: checkedValue('name.givenName', nameSchema, given.prenom, stored.prenom),
  }
}

/**
 * The login a write on an existing user sets at once, or undefined when it stays. A userName naming the new address of
 * a user whose login is their address keeps the login following it: it moves when the address does, at once for an
 * invited user and once confirmed for the others (`loginAfterMailChange`), as before logins of their own.
 */
export function newLogin(
  userName: string | undefined,
  mail: string | undefined,
  user: { login: string; mail: string },
): string | undefined {
  if (userName === undefined || userName === user.login) return undefined
  const follows =
    user.login.toLowerCase() === user.mail.toLowerCase() &&
    mail !== undefined &&
    userName.toLowerCase() === mail.toLowerCase()
  return follows ? undefined : userName
}
