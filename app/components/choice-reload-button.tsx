import type { ReactNode } from 'react'
import { useHydrated } from '~/lib/hydrated'
import { Button } from './ui/button'

/**
 * Without JavaScript, the button beside a choice that posts its form back only to show what the
 * choice brings (a structure's functions): intent `intent`, nothing checked, nothing saved. With
 * JavaScript the choice shows it at once and the button is not there.
 */
export function ChoiceReloadButton({ intent, children }: { intent: string; children: ReactNode }) {
  const hydrated = useHydrated()
  if (hydrated) return null
  return (
    <Button
      type="submit"
      name="intent"
      value={intent}
      formNoValidate
      variant="outline"
      size="sm"
      className="h-auto self-start py-2 text-left whitespace-normal"
    >
      {children}
    </Button>
  )
}
