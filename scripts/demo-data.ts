import { FIRST_PEPPER_ID, hashPassword } from '../worker-api/lib/password'

/**
 * The demo organisation loaded by `npm start` (and by the browser tests): a believable tree, its
 * functions and applications, and accounts covering every state the screens show. Every statement is
 * INSERT OR IGNORE with fixed ids, so loading twice changes nothing.
 */
export const DEMO_DOMAIN = 'http://localhost:8787'

export const DEMO_ACCOUNTS = [
  { login: 'admin', password: 'Admin1234', note: 'admin, current post on the root structure' },
  {
    login: 'agent',
    password: 'Agent1234',
    note: 'dock agent in Lille: four applications, one of them through OpenID Connect',
  },
  { login: 'adminsud', password: 'Adminsud1', note: 'admin of the southern direction only' },
  { login: 'chauffeur', password: 'Chauffeur1', note: 'carrier driver: one application' },
  { login: 'futur', password: 'Futur1234', note: 'future post only: no access yet' },
  { login: 'sansposte', password: 'Sansposte1', note: 'no post at all: no access' },
  { login: 'inactif', password: 'Inactif1', note: 'inactive: sign-in refused' },
  { login: 'supprime', password: 'Supprime1', note: 'deleted: sign-in refused' },
] as const

const TYPES = [
  [1, 'Groupe', null],
  [2, 'Direction', 1],
  [3, 'Agence', 2],
  [4, 'Transporteur', 3],
] as const

const STRUCTURES = [
  [1, 'Groupe Transports et Logistique', 1, null, '/1/'],
  [2, 'Direction Nord', 2, 1, '/1/2/'],
  [3, 'Direction Sud', 2, 1, '/1/3/'],
  [4, 'Agence Lille', 3, 2, '/1/2/4/'],
  [5, 'Agence Rouen', 3, 2, '/1/2/5/'],
  [6, 'Agence Marseille', 3, 3, '/1/3/6/'],
  [7, 'Transports Martin', 4, 4, '/1/2/4/7/'],
  [8, 'Fret Express Méditerranée', 4, 6, '/1/3/6/8/'],
] as const

const FONCTIONS = [
  [1, 'Directeur général', 1],
  [2, 'Administrateur du portail', 1],
  [3, 'Directeur régional', 2],
  [4, 'Directeur régional', 3],
  [5, "Chef d'agence", 4],
  [6, 'Agent de quai', 4],
  [7, 'Opérateur pesage', 4],
  [8, "Chef d'agence", 5],
  [9, 'Agent de quai', 5],
  [10, "Chef d'agence", 6],
  [11, 'Agent de quai', 6],
  [12, 'Chauffeur', 7],
  [13, 'Chauffeur', 8],
] as const

/** [id, libelle, icone, url, demandable]: the dock agents of Lille may ask for the appointments module. */
const APPLICATIONS = [
  [1, 'Yard dangereux', 'warning', '/demo-app/yard', 0],
  [2, 'Module Rendez vous', 'calendar', '/demo-app/rdv', 1],
  [3, 'Pesage', 'scale', '/demo-app/pesage', 0],
  [4, 'Suivi des expéditions', 'truck', '/demo-app/suivi', 0],
] as const

/**
 * The OpenID Connect demo application (app/routes/demo-app.oidc.*): a public client (PKCE alone) of
 * the portal, served by the same Worker, granted to the dock agents of Lille (the `agent` account); it
 * allows the device authorization grant too, for the demo device (app/routes/demo-app.appareil.tsx).
 */
const DEMO_OIDC = { id: 5, libelle: 'Démo OpenID Connect', icone: 'receipt', path: '/demo-app/oidc', fonctions: [6] }
const DEMO_OIDC_CLIENT_ID = 'demo-oidc'

/** [fonction, applications] */
const GRANTS = [
  [1, [4]],
  [2, [2, 4]],
  [3, [4]],
  [4, [4]],
  [5, [1, 2, 3, 4]],
  [6, [1, 3, 4]],
  [7, [3]],
  [8, [1, 2, 3, 4]],
  [9, [1, 3, 4]],
  [10, [1, 2, 3, 4]],
  [11, [1, 3, 4]],
  [12, [2]],
  [13, [2]],
] as const

/**
 * The functions a new structure of each type starts with (root administrators change them in the
 * portal): [id, type, libelle, position, applications]. A new agency can be staffed at once, and a
 * carrier company created at a registration's authorisation gives its carrier a driver's post.
 */
const MODELES = [
  [1, 2, 'Directeur régional', 0, [4]],
  [2, 3, "Chef d'agence", 0, [1, 2, 3, 4]],
  [3, 3, 'Agent de quai', 1, [1, 3, 4]],
  [4, 3, 'Opérateur pesage', 2, [3]],
  [5, 4, 'Chauffeur', 0, [2]],
] as const

type DemoUser = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  password: string | null
  admin?: boolean
  actif?: boolean
  supprime?: boolean
  registration?: 'PENDING'
  registrationStructure?: number
  registrationStructureNom?: string
  tokenRegister?: string
  /** [structure, fonction, from, to] */
  postes?: (readonly [number, number, string, string])[]
}

const USERS: DemoUser[] = [
  {
    id: 1,
    login: 'admin',
    nom: 'Durand',
    prenom: 'Claire',
    mail: 'claire.durand@portail.example',
    password: 'Admin1234',
    admin: true,
    postes: [[1, 2, '2024-01-01', '2035-12-31']],
  },
  {
    id: 2,
    login: 'agent',
    nom: 'Lefebvre',
    prenom: 'Thomas',
    mail: 'thomas.lefebvre@portail.example',
    password: 'Agent1234',
    postes: [[4, 6, '2025-01-01', '2035-12-31']],
  },
  {
    id: 3,
    login: 'adminsud',
    nom: 'Garcia',
    prenom: 'Sofia',
    mail: 'sofia.garcia@portail.example',
    password: 'Adminsud1',
    admin: true,
    postes: [[3, 4, '2024-06-01', '2035-12-31']],
  },
  {
    id: 4,
    login: 'chauffeur',
    nom: 'Martin',
    prenom: 'Lucas',
    mail: 'lucas.martin@transports-martin.example',
    password: 'Chauffeur1',
    postes: [[7, 12, '2025-03-01', '2035-12-31']],
  },
  {
    id: 5,
    login: 'futur',
    nom: 'Bernard',
    prenom: 'Emma',
    mail: 'emma.bernard@portail.example',
    password: 'Futur1234',
    postes: [[5, 8, '2034-01-01', '2036-12-31']],
  },
  {
    id: 6,
    login: 'sansposte',
    nom: 'Petit',
    prenom: 'Hugo',
    mail: 'hugo.petit@portail.example',
    password: 'Sansposte1',
  },
  {
    id: 7,
    login: 'inactif',
    nom: 'Roux',
    prenom: 'Camille',
    mail: 'camille.roux@portail.example',
    password: 'Inactif1',
    actif: false,
    postes: [[6, 11, '2024-01-01', '2035-12-31']],
  },
  {
    id: 8,
    login: 'supprime',
    nom: 'Fournier',
    prenom: 'Julien',
    mail: 'julien.fournier@portail.example',
    password: 'Supprime1',
    supprime: true,
    postes: [[5, 9, '2023-01-01', '2024-12-31']],
  },
  {
    id: 9,
    login: 'marc.girard@portail.example',
    nom: 'Girard',
    prenom: 'Marc',
    mail: 'marc.girard@portail.example',
    password: 'Pesage2024',
    postes: [
      [4, 7, '2024-01-01', '2035-12-31'],
      [5, 9, '2034-01-01', '2036-06-30'],
    ],
  },
  {
    id: 10,
    login: 'nadia.morel@portail.example',
    nom: 'Morel',
    prenom: 'Nadia',
    mail: 'nadia.morel@portail.example',
    password: 'Chefmars1',
    postes: [[6, 10, '2024-01-01', '2035-12-31']],
  },
  {
    id: 11,
    login: 'contact@fret-rhone.example',
    nom: 'Blanc',
    prenom: 'Antoine',
    mail: 'contact@fret-rhone.example',
    password: null,
    registration: 'PENDING',
    registrationStructure: 8,
    tokenRegister: '2035-01-15T09:30:00.000Z',
  },
  {
    id: 12,
    login: 'exploitation@alpes-fret.example',
    nom: 'Chevalier',
    prenom: 'Laura',
    mail: 'exploitation@alpes-fret.example',
    password: null,
    registration: 'PENDING',
    registrationStructureNom: 'Alpes Fret Services',
  },
  {
    id: 13,
    login: 'direction@nord-express.example',
    nom: 'Lambert',
    prenom: 'Pierre',
    mail: 'direction@nord-express.example',
    password: null,
    registration: 'PENDING',
    registrationStructure: 7,
    tokenRegister: '2025-06-01T08:00:00.000Z',
  },
]

const q = (value: string | number | null | undefined) =>
  value === null || value === undefined
    ? 'NULL'
    : typeof value === 'number'
      ? String(value)
      : `'${value.replace(/'/g, "''")}'`

const row = (...values: (string | number | null | undefined)[]) => `(${values.map(q).join(', ')})`

/** The OpenID Connect demo application, its client (its addresses on both loopback names) and grants. */
function demoOidcSql(domain: string): string[] {
  const origins = [domain, domain.replace('//localhost', '//127.0.0.1')].filter((o, i, all) => all.indexOf(o) === i)
  const base = `${domain}${DEMO_OIDC.path}`
  return [
    `INSERT OR IGNORE INTO application (id, libelle, icone, url, protocole) VALUES ${row(DEMO_OIDC.id, DEMO_OIDC.libelle, DEMO_OIDC.icone, DEMO_OIDC.path, 'OIDC')};`,
    // Only on the demo's own application (a local database may already hold another one under its id).
    `INSERT OR IGNORE INTO oidc_client (application_id, client_id, secret_hash, redirect_uris, post_logout_redirect_uris, initiate_login_uri, backchannel_logout_uri) SELECT ${[
      DEMO_OIDC.id,
      DEMO_OIDC_CLIENT_ID,
      null,
      JSON.stringify(origins.map((o) => `${o}${DEMO_OIDC.path}/callback`)),
      JSON.stringify(origins.map((o) => `${o}${DEMO_OIDC.path}`)),
      `${base}/login`,
      `${base}/backchannel`,
    ]
      .map(q)
      .join(', ')} WHERE EXISTS (SELECT 1 FROM application WHERE id = ${DEMO_OIDC.id} AND protocole = 'OIDC');`,
    `INSERT OR IGNORE INTO fonction_application (fonction_id, application_id) VALUES ${DEMO_OIDC.fonctions.map((f) => row(f, DEMO_OIDC.id)).join(', ')};`,
    // The demo device (/demo-app/appareil) signs in with the device authorization grant as this same client.
    `UPDATE oidc_client SET device_grant = 1 WHERE client_id = ${q(DEMO_OIDC_CLIENT_ID)};`,
  ]
}

/** The SQL that loads the demo organisation; passwords are hashed with the given pepper. */
export async function demoSeedSql(pepper: string, domain = DEMO_DOMAIN): Promise<string> {
  const statements = [
    `INSERT OR IGNORE INTO type_structure (id, libelle, parent_type_id) VALUES ${TYPES.map((t) => row(...t)).join(', ')};`,
    `INSERT OR IGNORE INTO structure (id, nom, type_id, parent_id, path) VALUES ${STRUCTURES.map((s) => row(...s)).join(', ')};`,
    `INSERT OR IGNORE INTO fonction (id, libelle, structure_id) VALUES ${FONCTIONS.map((f) => row(...f)).join(', ')};`,
    `INSERT OR IGNORE INTO application (id, libelle, icone, url, demandable) VALUES ${APPLICATIONS.map((a) => row(...a)).join(', ')};`,
    `INSERT OR IGNORE INTO fonction_application (fonction_id, application_id) VALUES ${GRANTS.flatMap(([f, apps]) => apps.map((a) => row(f, a))).join(', ')};`,
    ...demoOidcSql(domain),
    `INSERT OR IGNORE INTO modele_fonction (id, type_id, libelle, position) VALUES ${MODELES.map(([id, type, libelle, position]) => row(id, type, libelle, position)).join(', ')};`,
    `INSERT OR IGNORE INTO modele_fonction_application (modele_id, application_id) VALUES ${MODELES.flatMap(([id, , , , apps]) => apps.map((a) => row(id, a))).join(', ')};`,
  ]
  const users = await Promise.all(
    USERS.map(async (u) =>
      row(
        u.id,
        u.login,
        u.nom,
        u.prenom,
        u.mail,
        u.password ? await hashPassword(u.password, { id: FIRST_PEPPER_ID, secret: pepper }) : null,
        u.actif === false ? 0 : 1,
        u.supprime ? 1 : 0,
        u.admin ? 1 : 0,
        domain,
        u.registration ?? 'COMPLETE',
        u.registrationStructure,
        u.registrationStructureNom,
        u.tokenRegister,
      ),
    ),
  )
  statements.push(
    `INSERT OR IGNORE INTO utilisateur (id, login, nom, prenom, mail, password_hash, actif, supprime, admin, domain, registration_state, registration_structure_id, registration_structure_nom, token_register_expires_at) VALUES ${users.join(', ')};`,
    // A registration that typed its company waits under the carriers' parent (CARRIER_PARENT_ID, 4).
    `UPDATE utilisateur SET rattachement_id = 4 WHERE registration_state = 'PENDING' AND registration_structure_id IS NULL AND rattachement_id IS NULL;`,
  )
  let posteId = 0
  const postes = USERS.flatMap((u) => (u.postes ?? []).map(([s, f, from, to]) => row(++posteId, u.id, s, f, from, to)))
  statements.push(
    `INSERT OR IGNORE INTO poste (id, utilisateur_id, structure_id, fonction_id, date_debut, date_fin) VALUES ${postes.join(', ')};`,
  )
  return `${statements.join('\n')}\n`
}
