import { Link } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { ChoiceReloadButton } from '~/components/choice-reload-button'
import { DateRangeInput } from '~/components/date-range-input'
import { ChoiceField, SelectField } from '~/components/select-field'
import type { Fonction } from '../../../worker-api/contract/organisation/structure'
import type { StructureChoices } from './structure-choice'
import { StructureSelect } from './structure-select'

/** A field of the post as conform gives it. */
type PosteField = { id: string; name: string; initialValue?: unknown; errors?: string[] | undefined }

/**
 * A post's fields (spec §2, §5), shared by the create-user form and a structure's add-post form, each in its own words
 * (`words`, their namespace in the locales). Spec §4: a structure with no function is an error and a disabled select,
 * one is chosen, several leave the choice.
 */
export function PosteFields({
  words,
  fields,
  choices,
  structureId,
  fonctions,
  errors,
  typed = {},
}: {
  words: 'userCreate' | 'structureUsers'
  fields: { structure?: PosteField; fonction: PosteField; dateDebut: PosteField; dateFin: PosteField }
  /** The structures to choose from; without them the post's structure is the page's (`structureId`). */
  choices?: StructureChoices
  structureId: number | null
  fonctions: Fonction[]
  /** The errors a field shows now, in the page's language. */
  errors: (field: PosteField) => string[] | undefined
  /** What was typed before the page was live, by field name (`useTypedBeforeHydration`). */
  typed?: Record<string, string>
}) {
  const { t } = useTranslation()
  const word = (key: string) => t(`${words}.${key}`)
  const initial = (field: PosteField) => typed[field.name] ?? String(field.initialValue ?? '')
  const { structure, fonction, dateDebut, dateFin } = fields
  return (
    <>
      {choices && structure ? (
        <div className="flex flex-col gap-2">
          <StructureSelect
            id={structure.id}
            name={structure.name}
            label={word('structure')}
            choices={choices}
            defaultValue={structureId ? String(structureId) : ''}
            placeholder={word('chooseStructure')}
            emptyMessage={word('noStructure')}
            required
            errors={errors(structure)}
            intent="fonctions"
          />
          <ChoiceReloadButton intent="fonctions">{word('showFonctions')}</ChoiceReloadButton>
        </div>
      ) : null}
      {structureId ? (
        <ChoiceField
          key={structureId}
          id={fonction.id}
          name={fonction.name}
          label={word('fonction')}
          options={fonctions.map((choice) => ({ value: String(choice.id), label: choice.libelle }))}
          defaultValue={initial(fonction)}
          placeholder={word('chooseFonction')}
          emptyMessage={word('noFonction')}
          emptyHint={
            <Link to={`/pages/admin/structure/detail/${structureId}#fonctions`} className="underline">
              {word('addFonction')}
            </Link>
          }
          singleHint={word('oneFonction')}
          errors={errors(fonction)}
        />
      ) : (
        <SelectField
          label={word('fonction')}
          hint={word('structureFirst')}
          errors={errors(fonction)}
          options={[]}
          placeholder={word('chooseFonction')}
          selectProps={{ id: fonction.id, disabled: true }}
        />
      )}
      <DateRangeInput
        legend={word('period')}
        start={{
          name: dateDebut.name,
          id: dateDebut.id,
          label: word('dateDebut'),
          defaultValue: initial(dateDebut),
          errors: errors(dateDebut),
          required: true,
        }}
        end={{
          name: dateFin.name,
          id: dateFin.id,
          label: word('dateFin'),
          defaultValue: initial(dateFin),
          errors: errors(dateFin),
          required: true,
        }}
      />
    </>
  )
}
