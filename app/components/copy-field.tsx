import { Copy } from 'lucide-react'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useHydrated } from '~/lib/hydrated'
import { Button } from './ui/button'
import { Label } from './ui/label'
import { Textarea } from './ui/textarea'

/**
 * A value to copy (a client's id, a secret shown once): read-only text, wrapped rather than cut at any
 * width, selected whole when focused, so that it can be copied without JavaScript; once the page is
 * live, a button copies it and says so (a polite status).
 */
export function CopyField({
  id,
  label,
  value,
  copyLabel,
  describedBy,
}: {
  id: string
  label: string
  value: string
  /** The button's accessible name ("Copy the client id"): it starts with its visible "Copy". */
  copyLabel: string
  /** The id of what says more about the value (a warning). */
  describedBy?: string
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const input = useRef<HTMLTextAreaElement>(null)
  const [status, setStatus] = useState<'copied' | 'failed' | null>(null)
  async function copy() {
    try {
      await navigator.clipboard.writeText(value)
      setStatus('copied')
    } catch {
      // No clipboard access (an insecure origin, a refusal): the text is selected for the keyboard.
      input.current?.select()
      setStatus('failed')
    }
  }
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <div className="flex items-start gap-2">
        <Textarea
          ref={input}
          id={id}
          value={value}
          readOnly
          rows={1}
          onFocus={(event) => event.currentTarget.select()}
          aria-describedby={describedBy}
          autoComplete="off"
          spellCheck={false}
          className="field-sizing-content min-h-10 min-w-0 flex-1 resize-none break-all font-mono"
        />
        {hydrated ? (
          <Button type="button" variant="outline" onClick={copy} aria-label={copyLabel} className="shrink-0">
            <Copy aria-hidden />
            <span className="hidden sm:inline">{t('applications.oidc.copy')}</span>
          </Button>
        ) : null}
      </div>
      <p role="status" className="text-xs text-muted-foreground">
        {status === 'copied'
          ? t('applications.oidc.copied')
          : status === 'failed'
            ? t('applications.oidc.copyFailed')
            : null}
      </p>
    </div>
  )
}
