/** What a feature declares of each action its audit entries name: the action's code, with its label in each language. */
export type ActionLabels = Record<string, { fr: string; en: string }>

/** The labels of a feature's actions in one language. */
export const labelsIn = <A extends ActionLabels>(language: 'fr' | 'en', actions: A) =>
  Object.fromEntries(Object.entries(actions).map(([code, label]) => [code, label[language]])) as Record<keyof A, string>
