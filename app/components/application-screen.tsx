import { ApplicationForm } from './application-form'

type FormProps = Parameters<typeof ApplicationForm>[0]

/**
 * The form's data: the page's, or, after "show its functions" without JavaScript, the action's
 * (the same data for the structure chosen, with what was typed).
 */
export function formProps(reloaded: unknown, loaded: FormProps): FormProps {
  const again = reloaded as (FormProps & { intent?: string }) | undefined
  const { values, grants, grantsKept, structures, structure, fonctions, constraint } =
    again?.intent === 'fonctions' ? again : loaded
  return { values, grants, grantsKept, structures, structure, fonctions, constraint }
}

/** The application screen of both routes (register, edit): its title and the form. */
export function ApplicationScreen({ title, ...props }: FormProps & { title: string }) {
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      <ApplicationForm {...props} />
    </div>
  )
}
