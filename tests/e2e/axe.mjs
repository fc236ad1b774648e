// @ts-check
// axe's verdict on a page, for the accessibility tests.
import AxeBuilder from '@axe-core/playwright'

/** @typedef {import('./support.mjs').Page} Page */

/**
 * WCAG 2.1 A/AA violations (serious and critical unless `every`), described well enough to act on.
 * @param {Page} page
 * @param {{ every?: boolean }} [options]
 */
export async function violations(page, { every = false } = {}) {
  // What is still coming in or going (a toast's entrance, a dialog's fade) first ends: axe would read its colours
  // halfway (a contrast failure that is not on the page a moment later). Endless animations (a spinner) are not waited.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)))
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  )
  // Only the violations in full: axe then details one node of what passes or does not apply, not every one.
  // (`options` first: it replaces the options `withTags` sets.)
  const results = await new AxeBuilder({ page })
    .options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze()
  return results.violations
    .filter((v) => every || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}
