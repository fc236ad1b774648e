import { getFormProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation, useNavigate } from '@remix-run/react'
import { Plus } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { FormError, formProblem } from '~/components/form-error'
import { SearchSelect } from '~/components/search-select'
import { SubmitButton } from '~/components/submit-button'
import { Button, buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '~/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '~/components/ui/dialog'
import { Input } from '~/components/ui/input'
import { Label } from '~/components/ui/label'
import { translateError } from '~/lib/api-errors'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated, useTypedBeforeHydration } from '~/lib/hydrated'
import { urlWith } from '~/lib/url'
import type { PosteForm, Structure, StructureUsers } from '../../../worker-api/contract/organisation/structure'
import { PosteFields } from './poste-fields'

/** The add-post link's id: focus comes back to it once a post is added (`FOCUS_FIELD`). */
export const ADD_POSTE = 'ajouter-poste'

type Props = {
  structure: Structure
  users: StructureUsers
  /** The candidates' search (`?recherche=`). */
  recherche: string
  constraint: ReturnType<typeof getZodConstraint>
}

/**
 * The add-post form where it opens: a modal dialog once the page is live (the URL's `ajouter=1` opens
 * it, closing it takes that away), a section of the page without JavaScript.
 */
export function AddPoste({ open, ...props }: Props & { open: boolean }) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const { search } = useLocation()
  const heading = useRef<HTMLHeadingElement>(null)
  // What was typed in the section before the page was live is still there in the dialog.
  const [section, typed] = useTypedBeforeHydration<HTMLDivElement>()
  // The section opened by its link: focus goes to it, for keyboard and screen-reader users.
  useEffect(() => {
    if (open && !hydrated) heading.current?.focus()
  }, [open, hydrated])
  const title = t('structureUsers.addTitle', { nom: props.structure.nom })
  if (hydrated) {
    return (
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!next)
            navigate(urlWith(search, { ajouter: null, recherche: null }), { replace: true, preventScrollReset: true })
        }}
      >
        <DialogContent closeLabel={t('structureUsers.close')} aria-describedby="ajout-intro">
          <div className="flex flex-col gap-1.5 pr-6">
            <DialogTitle className="text-xl font-semibold leading-none tracking-tight">{title}</DialogTitle>
            <DialogDescription id="ajout-intro" className="text-sm text-muted-foreground">
              {t('structureUsers.addIntro')}
            </DialogDescription>
          </div>
          <AddPosteForm {...props} typed={typed} />
        </DialogContent>
      </Dialog>
    )
  }
  if (!open) return null
  return (
    <Card id="ajout" className="border-primary/40">
      <CardHeader>
        <h2 ref={heading} tabIndex={-1} className="text-xl font-semibold leading-none tracking-tight outline-none">
          {title}
        </h2>
        <CardDescription>{t('structureUsers.addIntro')}</CardDescription>
      </CardHeader>
      <CardContent>
        <div ref={section}>
          <AddPosteForm {...props} typed={typed} />
        </div>
      </CardContent>
    </Card>
  )
}

/**
 * Spec §5 add-post: a user (autocomplete over the candidates the API found), then the post's
 * function and period (`PosteFields`).
 */
function AddPosteForm({ structure, users, recherche, constraint, typed }: Props & { typed: Record<string, string> }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const reply = useFormReply('poste')
  const pending = usePendingIntent('poste')
  const fonctions = users.rechercheUtilisateur.fonctions
  const [form, fields] = useForm<PosteForm>({
    id: 'poste',
    lastResult: reply?.result,
    constraint,
    shouldValidate: 'onSubmit',
  })
  const translate = (errors: string[] | undefined) => errors?.map((error) => translateError(t, error))
  const candidates = users.rechercheUtilisateur.utilisateurs.map((user) => ({
    value: String(user.id),
    label: `${user.nom} ${user.prenom} (${user.mail})`,
  }))
  return (
    <div className="flex flex-col gap-4">
      {/* The candidates are searched by the API: a GET of this page that keeps the section open. */}
      <Form method="get" preventScrollReset className="flex flex-wrap items-end gap-2">
        {[...new URLSearchParams(search)]
          .filter(([name]) => name !== 'recherche')
          .map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
        <div className="flex min-w-0 flex-1 flex-col gap-1.5">
          <Label htmlFor="recherche">{t('structureUsers.findUser')}</Label>
          <Input id="recherche" name="recherche" type="search" defaultValue={typed.recherche ?? recherche} />
        </div>
        <Button type="submit" variant="outline">
          {t('structureUsers.findUserSubmit')}
        </Button>
      </Form>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="poste" />
        <input type="hidden" name={FOCUS_FIELD} value={ADD_POSTE} />
        <FormError
          message={formProblem(t, reply, {
            utilisateur: t('structureUsers.user'),
            fonction: t('structureUsers.fonction'),
            dateDebut: t('structureUsers.dateDebut'),
            dateFin: t('structureUsers.dateFin'),
          })}
        />
        <SearchSelect
          id={fields.utilisateur.id}
          name={fields.utilisateur.name}
          label={t('structureUsers.user')}
          options={candidates}
          defaultValue={typed[fields.utilisateur.name]}
          placeholder={t('structureUsers.chooseUser')}
          emptyMessage={t('structureUsers.noCandidate')}
          required
          errors={translate(fields.utilisateur.errors)}
        />
        <PosteFields
          words="structureUsers"
          fields={fields}
          structureId={structure.id}
          fonctions={fonctions}
          errors={(field) => translate(field.errors)}
          typed={typed}
        />
        <div className="flex flex-wrap gap-2">
          <SubmitButton
            icon={Plus}
            pending={pending}
            pendingLabel={t('structureUsers.adding')}
            disabled={fonctions.length === 0}
          >
            {t('structureUsers.addSubmit')}
          </SubmitButton>
          <Link
            to={urlWith(search, { ajouter: null, recherche: null })}
            preventScrollReset
            className={buttonVariants({ variant: 'outline' })}
          >
            {t('structureUsers.close')}
          </Link>
        </div>
      </Form>
    </div>
  )
}
