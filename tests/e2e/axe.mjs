// @ts-check
// axe's verdict on a page, for the accessibility tests.
import axe from 'axe-core'
import { BASE_URL } from './support.mjs'

/** @typedef {import('./support.mjs').Page} Page */

/** WCAG 2.1 A and AA, only the violations in full (axe then details one node of what passes, not every one). */
const RUN = /** @type {const} @satisfies {import('axe-core').RunOptions} */ ({
  resultTypes: ['violations'],
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
})

/**
 * WCAG 2.1 A/AA violations (serious and critical unless `every`), described well enough to act on.
 *
 * axe-core runs in the page (`axe.run` on its document), so a page without JavaScript is audited with
 * `noScriptViolations`. Its script is read into a document once: a dialog opened on a page already checked is checked
 * without reading it again. (Read again at each check and finished in a new blank page, as `@axe-core/playwright` does
 * for pages with frames, which the portal's have not, a check took 0.9 to 1.3 s where the run takes 30 to 100 ms.)
 * @param {Page} page
 * @param {{ every?: boolean }} [options]
 */
export async function violations(page, { every = false } = {}) {
  // What is still coming in or going (a toast's entrance, a dialog's fade) first ends: axe would read its colours
  // halfway (a contrast failure that is not on the page a moment later). Endless animations (a spinner) are not waited.
  const loaded = await page.evaluate(async () => {
    await Promise.all(
      document
        .getAnimations()
        .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)))
        .map((animation) => animation.finished.catch(() => undefined)),
    )
    return 'axe' in window
  })
  if (!loaded) await page.evaluate(axe.source)
  const found = await page.evaluate(
    (options) =>
      /** @type {Window & { axe: typeof axe }} */ (/** @type {unknown} */ (window)).axe.run(document, options),
    RUN,
  )
  return found.violations
    .filter((v) => every || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

/**
 * The same for a page as a browser without JavaScript shows it (axe needs scripting): its HTML, the <noscript> content
 * in place and the scripts removed, styles still applied, audited in a page of its own that runs axe.
 * @param {Page} noScriptPage
 * @param {{ every?: boolean }} [options]
 */
export async function noScriptViolations(noScriptPage, options) {
  const html = (await noScriptPage.content())
    .replace(/<script\b[\s\S]*?<\/script>/g, '')
    .replace(/<noscript>/g, '<div>')
    .replace(/<\/noscript>/g, '</div>')
    .replace('<head>', `<head><base href="${BASE_URL}/">`)
  const browser = noScriptPage.context().browser()
  if (!browser) throw new Error('The page is not of a launched browser')
  const auditor = await (await browser.newContext()).newPage()
  try {
    await auditor.setContent(html, { waitUntil: 'load' })
    return await violations(auditor, options)
  } finally {
    await auditor.context().close()
  }
}
