import { apiMessage } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { formReply, readForm, submitted } from '~/lib/form.server'
import { readPage } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { WEBHOOK_DELIVERY_STATES, type WebhookDeliveryState } from '../../../worker-api/contract/machines/webhooks'
import { DELIVERIES_SHOWN, DELIVERY_ROW, RESEND_INTENT, STATE_PARAM } from './webhook'

/**
 * What a subscription's delivery log reads, in the round trip of the admin check: the subscription, and a page of its
 * deliveries, newest first, of one state when the filter says (`?etat=`).
 */
export async function webhookLogData(request: Request, auth: Auth, id: number) {
  const url = new URL(request.url)
  const page = readPage(url.searchParams.get('page'))
  const wanted = url.searchParams.get(STATE_PARAM)
  const etat = WEBHOOK_DELIVERY_STATES.includes(wanted as WebhookDeliveryState)
    ? (wanted as WebhookDeliveryState)
    : undefined
  const [webhook, { items, total }] = await Promise.all([
    auth.expect(auth.api.rest.bd.webhook[':id'].$get({ param: { id } })),
    auth.expectPage(
      auth.api.rest.bd.webhook[':id'].livraisons.$get({
        param: { id },
        query: { page, taille: DELIVERIES_SHOWN, ...(etat ? { etat } : {}) },
      }),
    ),
  ])
  redirectPastLast(url, page, total, items.length, await auth.headers())
  return { webhook, livraisons: items, total, page, etat: etat ?? null }
}

/**
 * "Send again" on a row of the log: the delivery due at once, back to the log with a notice (focus on its row). A
 * delivery or subscription gone meanwhile is said as the API says it.
 */
export async function webhookLogAction(request: Request, auth: Auth, id: number) {
  const form = await readForm(request)
  const livraison = Number(form.get('id'))
  if (form.get('intent') !== RESEND_INTENT || !Number.isSafeInteger(livraison) || livraison < 1) {
    return formReply('', submitted(form).reply(), { key: 'errors.technical' }, await auth.headers())
  }
  const result = await auth.settle(
    auth.api.rest.bd.webhook[':id'].livraisons[':livraisonId'].renvoi.$post({ param: { id, livraisonId: livraison } }),
  )
  if (!result.ok) {
    return formReply(
      RESEND_INTENT,
      submitted(form).reply(),
      apiMessage(result, 'webhooks.resendFailed'),
      await auth.headers(),
    )
  }
  const back = new URL(request.url)
  return auth.redirectWithToast(`${back.pathname}${back.search}#${DELIVERY_ROW}-${livraison}`, {
    type: 'success',
    key: 'webhooks.resent',
    values: { type: result.data.evenement.type, id: result.data.evenement.id },
  })
}
