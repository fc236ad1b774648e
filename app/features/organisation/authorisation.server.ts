import { apiMessage, type Failure, fieldErrors, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { formReply, submitted } from '~/lib/form.server'
import { todayIso, toWireDate } from '../../../worker-api/contract/dates'

/** A post's default period at validation: from today, for a year (wire dates). */
export function defaultPeriod() {
  const today = todayIso()
  const [year, month, day] = today.split('-').map(Number) as [number, number, number]
  const inAYear = new Date(Date.UTC(year + 1, month - 1, day)).toISOString().slice(0, 10)
  return { dateDebut: toWireDate(today), dateFin: toWireDate(inAYear) }
}

/** The post a validation gives (`avecPoste`): the function chosen (none: no post) and its period. */
export function postFrom(form: FormData) {
  if (form.get('avecPoste') !== 'true') return undefined
  const fonction = String(form.get('fonction') ?? '')
  const [kind, ...rest] = fonction.split(':')
  const named = rest.join(':')
  if (fonction === '' || !named) return undefined
  const id = Number(named)
  const chosen = kind === 'id' && Number.isSafeInteger(id) && id > 0 ? { id } : { libelle: named }
  const dateDebut = String(form.get('dateDebut') ?? '').trim()
  const dateFin = String(form.get('dateFin') ?? '').trim()
  return { fonction: chosen, dateDebut, dateFin }
}

/**
 * A validation or a refusal the API turned down, as the queue says it: the company's name taken on
 * the page (the row stays), a registration no longer waiting by going back to the list (`back`) with
 * a notice, a post refused on the validation panel's fields, anything else on the page.
 */
export async function registrationRefusal(
  auth: Auth,
  intent: 'authorize' | 'refuse',
  form: FormData,
  failure: Failure,
  back: string,
) {
  const mail = String(form.get('mail') ?? '')
  const refused = async (error: Message, onFields?: Record<string, string[]>) =>
    formReply(
      intent,
      submitted(form).reply(onFields ? { fieldErrors: onFields } : undefined),
      error,
      await auth.headers(),
    )
  // The company it typed cannot be created under that name.
  if (failure.error.businessCode === 'STRUCTURE_NOM_ALREADY_USED') {
    const nom = String(failure.error.attributs[0] ?? '')
    return refused({ key: 'autorisation.companyNameTaken', values: { mail, nom } })
  }
  // Refused or accepted meanwhile (by another administrator), or out of scope: the list is read again.
  if (failure.status === 404 || failure.status === 409) {
    return auth.redirectWithToast(back, { type: 'error', key: 'autorisation.notPending', values: { mail } })
  }
  // The post refused (a period, a function no longer there).
  const fields = fieldErrors(failure)
  if (form.get('avecPoste') === 'true' && fields) {
    // The API names a field by its path in the request body (`poste.fonction.id`, `poste.dateDebut`):
    // the panel's field gathers what was said on it and under it.
    const onPost = (field: string) =>
      Object.entries(fields).flatMap(([path, said]) =>
        path === `poste.${field}` || path.startsWith(`poste.${field}.`) ? (said ?? []) : [],
      )
    return refused(
      { key: 'autorisation.postRefused' },
      { fonction: onPost('fonction'), dateDebut: onPost('dateDebut'), dateFin: onPost('dateFin') },
    )
  }
  return refused(
    failure.error.businessCode === 'TOO_MANY_ATTEMPTS'
      ? { key: 'autorisation.tooManyMails', values: { mail } }
      : apiMessage(failure, 'errors.LISTE_UPDATE_FAILED'),
  )
}
