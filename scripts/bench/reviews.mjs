// An access review over the whole organisation: a campaign over the root's sub-tree (every current post, about
// 100 000 on the large organisation), opened on the imports' queue a window of post ids per message and timed window by
// window; the reviewers' pages of it are scenarios of their own (scenarios.mjs).
import { selected } from './context.mjs'
import { admin, d1Query } from './database.mjs'
import { memoryMiB, stop } from './servers.mjs'

export const OPENING_NAME = 'POST rest/bd/revue (a campaign over the whole organisation, opened on the queue)'
/** The scenarios that read the campaign: they open one, unmeasured, when `--only` leaves the opening out. */
export const REVIEW_READS = 'revue|revues'
/** The root of the demo and of the large organisation. */
const ROOT_STRUCTURE = 1
/** How often the campaign's progress is read while it opens. */
const POLL_MS = 50
/** The post ids one message goes through (services/governance/review-runs.ts OPENING_WINDOW). */
const OPENING_WINDOW = 4000

/** A day `days` from today as the API writes it (dd/MM/yyyy). */
const wireDay = (days) => {
  const day = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
  return day.split('-').reverse().join('/')
}

/**
 * Opens the campaign the review scenarios read, on a freshly started portal, and times its opening. Returns its id and
 * figures: the items, the messages (a window of post ids each, up to the last post id when it opened), the whole
 * opening and its mean per message, and the longest time between two changes of its item count read every 50 ms — a
 * bound on any one message's time (its delivery and its D1 batch), hence on the Worker's own time in it, which is what
 * the CPU limit counts. Null when `--only` selects neither the opening nor a scenario that reads the campaign.
 */
export async function openedCampaign({ options, api }, { startPortal }, { login }, persistTo) {
  if (!selected(options, OPENING_NAME) && !options.only?.match(new RegExp(REVIEW_READS, 'i'))) return null
  const { child } = await startPortal()
  let opened
  try {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' }
    const started = performance.now()
    const response = await fetch(`${api}/bd/revue`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        nom: `Revue du banc ${new Date().toISOString().slice(0, 16)}`,
        structure: { id: ROOT_STRUCTURE },
        echeance: wireDay(30),
        siNonRevu: 'CONSERVER',
      }),
    })
    if (response.status !== 201) throw new Error(`campaign ${response.status} ${await response.text()}`)
    const { id } = await response.json()
    const steps = []
    const memory = []
    let seen = 0
    let last = started
    let campaign
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      campaign = await (await fetch(`${api}/bd/revue/${id}`, { headers })).json()
      const now = performance.now()
      if (campaign.progression.total !== seen) {
        steps.push(now - last)
        last = now
        seen = campaign.progression.total
        memory.push(memoryMiB(child.pid))
      }
      if (campaign.etat !== 'OUVERTURE') break
    }
    if (campaign.etat !== 'OUVERTE') throw new Error(`the campaign is ${campaign.etat} after its opening`)
    const figures = {
      items: campaign.progression.total,
      seconds: (last - started) / 1000,
      longestMs: Math.max(...steps),
      memory: [Math.min(...memory), Math.max(...memory)],
    }
    process.stderr.write(`${OPENING_NAME}: ${figures.items} items in ${figures.seconds.toFixed(1)} s\n`)
    opened = { id, figures }
  } finally {
    await stop(child)
  }
  opened.figures.messages = openingMessages(persistTo, opened.id)
  return opened
}

/** The messages campaign `id` opened in: a window of post ids each, up to the last post id when it opened. */
export function openingMessages(persistTo, id) {
  const [row] = d1Query(persistTo, `SELECT dernier_poste FROM revue WHERE id = ${Number(id)}`)
  return Math.max(1, Math.ceil(Number(row?.dernier_poste ?? 0) / OPENING_WINDOW))
}
