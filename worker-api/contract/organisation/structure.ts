import { z } from 'zod'
import { datesInOrder, pageQuery, positiveInt, ref, requiredId, wireDateSchema } from '../common'
import { userSchema } from './user'

/** Spec §3: a structure, its type and its parent (null for the root), and its users when asked. */
export const structureSchema = z.object({
  id: z.number().int(),
  nom: z.string(),
  type: z.object({ id: z.number().int(), libelle: z.string() }),
  parent: z.object({ id: z.number().int(), nom: z.string() }).nullable(),
  path: z.string().describe("Materialised path ('/1/4/9/'); the list's order"),
  nbUtilisateurs: z
    .number()
    .int()
    .nullable()
    .describe('Users with a current or future post here (with users=true, and for a single structure); else null'),
})
export type Structure = z.infer<typeof structureSchema>

export const typeStructureSchema = z.object({ id: z.number().int(), libelle: z.string() })
export type TypeStructure = z.infer<typeof typeStructureSchema>

export const fonctionSchema = z.object({ id: z.number().int(), libelle: z.string() })
export type Fonction = z.infer<typeof fonctionSchema>

/** GET fonction/structure/{id}: a function with what it grants and how many posts hold it. */
export const structureFonctionSchema = fonctionSchema.extend({
  applications: z
    .array(z.object({ id: z.number().int(), libelle: z.string(), actif: z.boolean() }))
    .describe('The applications it grants, by name (those switched off too: their grants are kept)'),
  nbPostes: z
    .number()
    .int()
    .describe('The posts that hold it, past and future ones included: while there is one, it cannot be deleted'),
})
export type StructureFonction = z.infer<typeof structureFonctionSchema>

/** A function's name: required, 3 to 50 characters, unique in its structure whatever its case. */
export const fonctionLibelleSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.nameLength')
  .max(50, 'validation.nameLength')

/** POST rest/bd/fonction: `{libelle, structure: {id}}`. */
export const fonctionInputSchema = z.object({ libelle: fonctionLibelleSchema, structure: ref })
export type FonctionInput = z.infer<typeof fonctionInputSchema>

/** The most applications one call may grant a function (each is a bound value in D1). */
export const FONCTION_GRANTS_MAX = 50

/** PUT rest/bd/fonction: `{id, libelle}`, and for a root administrator the applications it grants. */
export const fonctionUpdateSchema = z.object({
  id: positiveInt(),
  libelle: fonctionLibelleSchema,
  applications: z
    .array(ref)
    .max(FONCTION_GRANTS_MAX, 'validation.tooMany')
    .optional()
    .describe(
      `The whole list of the applications it grants (${FONCTION_GRANTS_MAX} at most); root administrators only (else 403). Left out: unchanged`,
    ),
})
export type FonctionUpdate = z.infer<typeof fonctionUpdateSchema>

export const fonctionIdParam = z.object({ id: positiveInt() })

/** Spec §5: structure name required, 3 to 50 characters. */
export const structureNomSchema = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .min(3, 'validation.structureNomLength')
  .max(50, 'validation.structureNomLength')

/** POST and PUT rest/bd/structure: `{id, nom, type{id}, parent{id} or null}` (id only for PUT). */
export const structureInputSchema = z.object({
  id: positiveInt().nullish(),
  nom: structureNomSchema,
  type: ref,
  parent: ref.nullable(),
})
export type StructureInput = z.infer<typeof structureInputSchema>

export const STRUCTURE_SORTS = ['path', '-path', 'nom', '-nom'] as const

export const structureListQuery = z.object({
  users: z.enum(['true', 'false']).optional().describe('true: count each structure’s users (nbUtilisateurs)'),
  ...pageQuery,
  tri: z.enum(STRUCTURE_SORTS).optional().describe('Sort (default path; a leading minus sorts descending)'),
})

export const structureIdParam = z.object({ id: positiveInt() })
export const idStructureParam = z.object({ idStructure: positiveInt() })
export const typeIdParam = z.object({ typeId: positiveInt() })
export const nomParam = z.object({ nom: z.string().min(1).max(200) })

/** GET rest/bd/structure/nom/{nom}: the name as taken (whatever its case), or null when it is free. */
export const nomTakenSchema = z.object({ nom: z.string().nullable() })

export const candidateSchema = z.object({
  id: z.number().int(),
  prenom: z.string(),
  nom: z.string(),
  mail: z.string(),
})

/** Spec §3 structure-users response, with the totals of the two lists when they are paged. */
export const structureUsersSchema = z.object({
  utilisateursEnCours: z.array(userSchema),
  utilisateursFuturs: z.array(userSchema),
  totalEnCours: z.number().int(),
  totalFuturs: z.number().int(),
  rechercheUtilisateur: z.object({
    utilisateurs: z.array(candidateSchema).describe('Users the caller may give a post to (20 at most; see recherche)'),
    fonctions: z.array(fonctionSchema),
  }),
})
export type StructureUsers = z.infer<typeof structureUsersSchema>

export const structureUsersQuery = z.object({
  ...pageQuery,
  recherche: z.string().trim().max(100).optional().describe('Filters the candidates by nom, prenom or mail'),
})

/** POST rest/bd/poste (spec §7). */
export const posteInputSchema = datesInOrder(
  z.object({
    structure: ref,
    fonction: ref,
    utilisateur: ref,
    dateDebut: wireDateSchema,
    dateFin: wireDateSchema,
  }),
)
export type PosteInput = z.infer<typeof posteInputSchema>

/** PUT rest/bd/poste: a post's new period (what "extend" does), under the rules of its creation. */
export const posteUpdateSchema = datesInOrder(
  z.object({ id: positiveInt(), dateDebut: wireDateSchema, dateFin: wireDateSchema }),
)
export type PosteUpdate = z.infer<typeof posteUpdateSchema>

/** The structure form (spec §2, §5): what the screen posts, before it becomes the API's body. */
export const structureFormSchema = z.object({
  nom: structureNomSchema,
  type: requiredId(),
  parent: z.coerce.number<number>().int().positive().optional(),
})
export type StructureForm = z.input<typeof structureFormSchema>

/** The add-post form of a structure's users (spec §5: user, function and date range all required). */
export const posteFormSchema = datesInOrder(
  z.object({ utilisateur: requiredId(), fonction: requiredId(), dateDebut: wireDateSchema, dateFin: wireDateSchema }),
)
export type PosteForm = z.input<typeof posteFormSchema>
