// @ts-check
import { readFileSync } from 'node:fs'

/**
 * The administration menu's pages, as `ADMIN_MENU` (app/lib/menu.ts) lists them: a page added to the menu is walked by
 * the widths and accessibility checks with no other change. Read from the module's text (these tests run without
 * TypeScript); `tests/unit/page-pins.test.ts` checks that this finds the menu's every entry.
 * @type {string[]}
 */
export const ADMIN_MENU_PAGES = [
  ...(
    readFileSync(new URL('../../app/lib/menu.ts', import.meta.url), 'utf8').split('export const USER_MENU')[0] ?? ''
  ).matchAll(/\bto: '(\/pages\/admin[^']*)'/g),
].map(([, address]) => address ?? '')
