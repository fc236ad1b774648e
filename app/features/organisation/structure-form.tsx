import { getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useFetcher, useSubmit } from '@remix-run/react'
import { Save } from 'lucide-react'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { ChoiceField, SelectField } from '~/components/select-field'
import { SubmitButton } from '~/components/submit-button'
import { Button, buttonVariants } from '~/components/ui/button'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import type {
  Structure,
  TypeStructure,
  StructureForm as Values,
} from '../../../worker-api/contract/organisation/structure'

/** A parent the form offers: an option, its id and name. */
export type ParentChoice = Pick<Structure, 'id' | 'nom'>

/**
 * The structure form (spec §2, §4, §5). The parents depend on the type: choosing one reloads with `?type=` (a GET of
 * this very form, so the name typed is kept). Then 0 parents is an error, 1 is selected and disabled (a hidden input
 * posts it), several leave the choice.
 */
export function StructureForm({
  structure,
  types,
  typeId,
  parents,
  nom,
  constraint,
}: {
  structure: Structure | null
  types: TypeStructure[]
  typeId: number | null
  parents: ParentChoice[]
  nom: string | null
  constraint: ReturnType<typeof getZodConstraint>
}) {
  const { t } = useTranslation()
  const reply = useFormReply('structure')
  const pending = usePendingIntent('structure')
  const hydrated = useHydrated()
  const submit = useSubmit()
  const formRef = useRef<HTMLFormElement>(null)
  const placed = structure === null || structure.parent !== null
  const currentParent =
    structure?.parent && parents.some((p) => p.id === structure.parent?.id) ? structure.parent.id : null
  const [form, fields] = useForm<Values>({
    id: 'structure',
    lastResult: reply?.result,
    defaultValue: {
      nom: nom ?? structure?.nom ?? '',
      type: typeId ? String(typeId) : '',
      // A single possible parent is posted by the field itself (ChoiceField).
      parent: currentParent ? String(currentParent) : '',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  // A failed save's errors on a field go once it is changed: the name check then speaks.
  const shown = useFieldErrors(reply)
  const nameCheck = useNameCheck(structure?.nom ?? null)

  return (
    <Form
      method="post"
      {...getFormProps(form)}
      ref={formRef}
      className="flex max-w-xl flex-col gap-4"
      onInput={shown.onInput}
    >
      <input type="hidden" name="intent" value="structure" />
      <FormError
        message={formProblem(t, reply, {
          nom: t('structures.nom'),
          type: t('structures.type'),
          parent: t('structures.parent'),
        })}
      />
      <Field
        label={t('structures.nom')}
        errors={
          shown.errors(fields.nom) ??
          (nameCheck.taken ? [t('errors.STRUCTURE_NOM_ALREADY_USED', { nom: nameCheck.taken })] : undefined)
        }
        hint={nameCheck.free ? t('structures.nomFree') : undefined}
        inputProps={{
          ...getInputProps(fields.nom, { type: 'text' }),
          id: fields.nom.id,
          autoComplete: 'off',
          onChange: (event) => nameCheck.check(event.currentTarget.value),
        }}
      />
      {placed ? (
        <>
          <div className="flex flex-col gap-2">
            <SelectField
              label={t('structures.type')}
              errors={shown.errors(fields.type)}
              placeholder={t('structures.chooseType')}
              options={types.map((type) => ({ value: String(type.id), label: type.libelle }))}
              selectProps={{
                ...getSelectProps(fields.type),
                id: fields.type.id,
                // The parents of the new type: the page again, with what is typed kept.
                onChange: (event) => {
                  const form = event.currentTarget.form
                  if (!form) return
                  const data = new FormData(form)
                  submit(
                    { type: String(data.get('type') ?? ''), nom: String(data.get('nom') ?? '') },
                    {
                      method: 'get',
                      replace: true,
                      preventScrollReset: true,
                    },
                  )
                },
              }}
            />
            {hydrated ? null : (
              <Button
                type="submit"
                formMethod="get"
                variant="outline"
                size="sm"
                className="h-auto self-start py-2 text-left whitespace-normal"
              >
                {t('structures.showParents')}
              </Button>
            )}
          </div>
          {typeId ? (
            <ChoiceField
              id={fields.parent.id}
              name={fields.parent.name}
              label={t('structures.parent')}
              options={parents.map((parent) => ({ value: String(parent.id), label: parent.nom }))}
              defaultValue={String(fields.parent.initialValue ?? '')}
              placeholder={t('structures.chooseParent')}
              emptyMessage={t('structures.noParent')}
              singleHint={t('structures.oneParent')}
              errors={shown.errors(fields.parent)}
            />
          ) : null}
        </>
      ) : (
        <p className="text-sm text-muted-foreground">{t('structures.rootNoParent')}</p>
      )}
      <div className="flex flex-wrap gap-2">
        <SubmitButton icon={Save} pending={pending} pendingLabel={t('structures.saving')}>
          {t('structures.save')}
        </SubmitButton>
        <Link to="/pages/admin/listeStructures" className={buttonVariants({ variant: 'outline' })}>
          {t('structures.cancel')}
        </Link>
      </div>
    </Form>
  )
}

/**
 * Spec §5: the name's uniqueness, checked as it is typed (after a pause): the API answers the name
 * as a structure holds it, or null. The structure's own name is no conflict. Without JavaScript the
 * save answers the same (409 on the name field).
 */
function useNameCheck(own: string | null) {
  const fetcher = useFetcher<{ nom: string | null; asked: string }>()
  const timer = useRef<ReturnType<typeof setTimeout>>()
  const [asked, setAsked] = useState('')
  const answer = fetcher.data && fetcher.data.asked === asked ? fetcher.data.nom : undefined
  const mine = (name: string) => own !== null && name.toLowerCase() === own.toLowerCase()
  return {
    taken: answer && !mine(answer) ? answer : null,
    free: answer === null && asked.length >= 3,
    check(value: string) {
      const name = value.trim()
      setAsked(name)
      clearTimeout(timer.current)
      if (name.length < 3 || name.length > 50 || mine(name)) return
      timer.current = setTimeout(() => fetcher.load(`/pages/admin/structure/nom?nom=${encodeURIComponent(name)}`), 300)
    },
  }
}
