/** The items a page of a campaign shows. */
export const ITEMS_PER_PAGE = 50

/** The search of structures in the campaign form without JavaScript: the form again, with the matches. */
export const REVIEW_SEARCH_INTENT = 'structures'

/** The campaign form's own intent (its search is `REVIEW_SEARCH_INTENT`). */
export const OPEN_INTENT = 'ouvrir'
