import { Form, Link, useLocation, useNavigation } from '@remix-run/react'
import type { TFunction } from 'i18next'
import { Mail, UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { RowDelete } from '~/components/row-delete'
import { Button, buttonVariants } from '~/components/ui/button'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { usePendingIntent } from '~/lib/form'
import { urlWith } from '~/lib/url'
import { cn } from '~/lib/utils'
import type { PendingUser } from '../../../worker-api/contract/organisation/registration'

/** The search param that opens the validation of a registration (its post, then the link). */
export const VALIDATE = 'valider'

/** The prefix of the queue's rows' ids (`inscription-11`). */
export const REGISTRATION_ROW = 'inscription'

export const fullName = (user: Pick<PendingUser, 'prenom' | 'nom'>) => `${user.prenom} ${user.nom}`

/**
 * The refusal of a registration, as its dialog and the no-JavaScript panel ask it; focus then goes to
 * the row that takes the refused one's place (`rows`, the page's).
 */
export function refusal(t: TFunction, rows: PendingUser[], user: PendingUser) {
  return {
    title: t('autorisation.deleteTitle', { mail: user.mail }),
    description: t('autorisation.deleteConfirm', { nom: fullName(user) }),
    confirmLabel: t('autorisation.delete'),
    pendingLabel: t('autorisation.deleting'),
    fields: {
      intent: 'refuse',
      id: String(user.id),
      mail: user.mail,
      [FOCUS_FIELD]: neighbourAnchor(rows, user, REGISTRATION_ROW),
    },
  }
}

/**
 * A registration's buttons: the validation (its panel, `?valider=`) or, once it has a link, a resend
 * of the link; and its refusal, after a confirmation.
 */
export function RegistrationActions({ user, rows }: { user: PendingUser; rows: PendingUser[] }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const navigation = useNavigation()
  const authorizing = usePendingIntent('authorize')
  const sending = authorizing && navigation.formData?.get('id') === String(user.id)
  return (
    <div className="flex flex-wrap justify-end gap-1">
      {user.tokenRegister !== null ? (
        <Form method="post" preventScrollReset>
          <input type="hidden" name="intent" value="authorize" />
          <input type="hidden" name="id" value={user.id} />
          <input type="hidden" name="mail" value={user.mail} />
          <input type="hidden" name="renvoi" value="true" />
          {/* The row stays (its link sent, its expiry shown): focus comes back to this button. */}
          <input type="hidden" name={FOCUS_FIELD} value={anchorId('valider', user.id)} />
          <Button
            id={anchorId('valider', user.id)}
            type="submit"
            variant="ghost"
            size="sm"
            // One mail at a time: a second click would send a second link.
            disabled={authorizing}
            aria-label={t('autorisation.resendLabel', { mail: user.mail })}
          >
            <Mail aria-hidden />
            <span className="hidden lg:inline">{sending ? t('autorisation.sending') : t('autorisation.resend')}</span>
          </Button>
        </Form>
      ) : (
        // The first validation gives the post the carrier starts with: a panel asks for it.
        <Link
          id={anchorId('valider', user.id)}
          to={`${urlWith(search, { [VALIDATE]: String(user.id), confirmer: null, id: null })}#validation`}
          preventScrollReset
          className={buttonVariants({ variant: 'ghost', size: 'sm' })}
          aria-label={t('autorisation.validateLabel', { mail: user.mail })}
        >
          <UserCheck aria-hidden />
          <span className="hidden lg:inline">{t('autorisation.validate')}</span>
        </Link>
      )}
      <RowDelete
        anchor="refuser"
        confirm="refuse"
        id={user.id}
        search={search}
        {...refusal(t, rows, user)}
        word={t('autorisation.delete')}
        name={t('autorisation.deleteLabel', { mail: user.mail })}
      />
    </div>
  )
}

/**
 * Spec §2: the link's expiry as DD/MM/YYYY HH:mm, red once it has passed and green while it works,
 * with a word saying which (the colour is not the only cue); a registration not yet validated has none.
 */
export function Expiry({ expiry, now }: { expiry: number | null; now: number }) {
  const { t } = useTranslation()
  if (expiry === null) {
    return (
      <span className="text-muted-foreground">
        <span aria-hidden>— </span>
        {t('autorisation.notValidated')}
      </span>
    )
  }
  const expired = expiry < now
  return (
    <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <time
        dateTime={new Date(expiry).toISOString()}
        className={cn('tabular-nums', expired ? 'text-destructive' : 'text-green-700')}
      >
        {displayDateTime(new Date(expiry).toISOString())}
      </time>
      <span
        className={cn(
          'inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium',
          expired ? 'border-destructive/40 bg-destructive/10 text-destructive' : 'border-green-700/40 text-green-700',
        )}
      >
        {t(expired ? 'autorisation.expired' : 'autorisation.valid')}
      </span>
    </span>
  )
}

/** The company of a registration: a carrier, or a name typed at registration, created on validation. */
export function Company({ structure }: { structure: PendingUser['structure'] }) {
  const { t } = useTranslation()
  if (!structure) return <span className="text-muted-foreground">—</span>
  return (
    <>
      <span className="break-words">{structure.nom}</span>
      {structure.id === null ? (
        <span className="block text-xs text-muted-foreground">{t('autorisation.newCompany')}</span>
      ) : null}
    </>
  )
}
