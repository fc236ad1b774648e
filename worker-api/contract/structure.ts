import { z } from 'zod'
import { datesInOrder, pageQuery, positiveInt, ref, requiredId, wireDateSchema } from './common'
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
