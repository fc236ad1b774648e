import { z } from 'zod'

export const posteSchema = z.object({
  id: z.number().int(),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  fonction: z.object({ id: z.number().int(), libelle: z.string() }),
  utilisateur: z.object({ id: z.number().int() }),
  dateDebut: z.string().describe('dd/MM/yyyy'),
  dateFin: z.string().describe('dd/MM/yyyy'),
})

export const userSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  nom: z.string(),
  prenom: z.string(),
  mail: z.string(),
  actif: z.boolean(),
  supprime: z.boolean(),
  admin: z.boolean(),
  modification: z.boolean().describe('Whether the caller may edit this user'),
  postesEnCours: z.array(posteSchema),
  postesFutur: z.array(posteSchema),
  tokenRegister: z.number().int().nullable().describe('Registration token expiry, epoch milliseconds'),
})

export const idParam = z.object({ id: z.coerce.number().int().positive() })
