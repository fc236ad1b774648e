/**
 * The submitted form, or a 400 when the body is not a form at all (a script posting JSON, say):
 * bad input is never a 500.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData()
  } catch {
    throw new Response('Expected a form submission', { status: 400 })
  }
}
