import { type FieldMetadata, getInputProps } from '@conform-to/react'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'

/** A conform field as a box to tick, with what it does under its label (read with it by a screen reader). */
export function CheckboxField({ field, label, hint }: { field: FieldMetadata<unknown>; label: string; hint: string }) {
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-start gap-2">
        <input
          {...getInputProps(field as FieldMetadata<string>, { type: 'checkbox' })}
          id={field.id}
          aria-describedby={`${field.id}-hint`}
          className={CHECKBOX}
        />
        <Label htmlFor={field.id}>{label}</Label>
      </div>
      <p id={`${field.id}-hint`} className="pl-6 text-xs text-muted-foreground">
        {hint}
      </p>
    </div>
  )
}
