/** The class of a native checkbox or radio button beside its label: the portal's colour and a visible keyboard focus. */
export const CHECKBOX =
  'mt-0.5 size-4 shrink-0 accent-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2'
