/**
 * The architecture of the README's code tour, as rules `npm run lint` checks on every import.
 *
 *   app/ (Remix) ──▶ worker-api/contract/ (the wire: schemas, types, dates; a leaf)
 *   worker-api: app.ts ──▶ routes/ ──▶ services/ ──▶ lib/ ──▶ db/ ──▶ contract/
 *   services/: bulk/ ──▶ governance/ ──▶ saml/ ──▶ oidc/ ──▶ machines/ ──▶ sign-in/ ──▶ organisation/ ──▶ catalogue/ ──▶ history/ ──▶ core/
 *   routes/: the same feature folders, apart from each other
 *   contract/: bulk/ ──▶ machines/ ──▶ catalogue/ ──▶ governance/ ──▶ saml/ ──▶ oidc/ ──▶ sign-in/ ──▶ organisation/ ──▶ history/
 *   app/: routes/ ──▶ features/ (bulk/ ──▶ governance/ ──▶ machines/ ──▶ catalogue/ ──▶ organisation/ ──▶ sign-in/; demo/) ──▶ components/, lib/
 *
 * An arrow never runs backwards, and no import leads back to where it started.
 */
const WORKER = '^worker-api/'
const ABOVE_SERVICES = '^worker-api/(routes/|app\\.ts|index\\.ts)'
/** The feature folders of services/, each above the ones after it (the hourly purge at the root sees all). */
const FEATURES = [
  'bulk',
  'governance',
  'saml',
  'oidc',
  'machines',
  'sign-in',
  'organisation',
  'catalogue',
  'history',
  'core',
]

const featureRules = FEATURES.slice(1).map((feature, index) => ({
  name: `services-${feature}-below-${FEATURES.slice(0, index + 1).join('-')}`,
  severity: 'error',
  comment: `services/${feature}/ is used by the features above it and uses none of them.`,
  from: { path: `${WORKER}services/${feature}/` },
  to: { path: `${WORKER}services/(${FEATURES.slice(0, index + 1).join('|')}|[^/]+\\.ts$)` },
}))

/**
 * The feature folders of contract/, each above the ones after it (an application's wire form carries its OIDC client
 * and the functions it opens to; a service account's proof is a second factor's); the shared wire (dates, errors,
 * jobs…) sits at its root.
 */
const CONTRACT_FEATURES = [
  'bulk',
  'machines',
  'catalogue',
  'governance',
  'saml',
  'oidc',
  'sign-in',
  'organisation',
  'history',
]

const contractFeatureRules = CONTRACT_FEATURES.slice(1).map((feature, index) => ({
  name: `contract-${feature}-below-${CONTRACT_FEATURES.slice(0, index + 1).join('-')}`,
  severity: 'error',
  comment: `contract/${feature}/ is read by the features above it and reads none of them.`,
  from: { path: `${WORKER}contract/${feature}/` },
  to: { path: `${WORKER}contract/(${CONTRACT_FEATURES.slice(0, index + 1).join('|')})/` },
}))

/** A feature's routes mount its own services' calls: no route file uses another feature's routes. */
const routeFeatureRules = FEATURES.slice(0, -1).map((feature) => ({
  name: `routes-${feature}-alone`,
  severity: 'error',
  comment: `routes/${feature}/ uses the shared route helpers (routes/*.ts), never another feature's routes.`,
  from: { path: `${WORKER}routes/${feature}/` },
  to: { path: `${WORKER}routes/[^/]+/`, pathNot: `${WORKER}routes/${feature}/` },
}))

/** The pages' feature folders, each above the ones after it (demo/, the development-only screens, stands apart). */
const UI_FEATURES = ['bulk', 'governance', 'machines', 'catalogue', 'organisation', 'sign-in']

const uiFeatureRules = [
  ...UI_FEATURES.slice(1).map((feature, index) => ({
    name: `app-${feature}-below-${UI_FEATURES.slice(0, index + 1).join('-')}`,
    severity: 'error',
    comment: `app/features/${feature}/ is used by the features above it and uses none of them.`,
    from: { path: `^app/features/${feature}/` },
    to: { path: `^app/features/(${UI_FEATURES.slice(0, index + 1).join('|')})/` },
  })),
  {
    name: 'app-demo-stands-apart',
    severity: 'error',
    comment: 'The demo client and the development mailbox are pages of their own: no feature uses them, they use none.',
    from: { path: '^app/features/', pathNot: '^app/features/demo/' },
    to: { path: '^app/features/demo/' },
  },
  {
    name: 'app-demo-uses-no-feature',
    severity: 'error',
    comment: 'The demo client and the development mailbox are pages of their own: no feature uses them, they use none.',
    from: { path: '^app/features/demo/' },
    to: { path: '^app/features/', pathNot: '^app/features/demo/' },
  },
  {
    name: 'app-kit-below-features',
    severity: 'error',
    comment: 'app/lib/ (infrastructure) and app/components/ (the kit) serve every feature and know none of them.',
    from: { path: '^app/(lib|components)/' },
    to: { path: '^app/(features|routes)/' },
  },
  {
    name: 'app-routes-imported-by-none',
    severity: 'error',
    comment: 'A route module is loaded by Remix; what two routes share lives in a feature folder or the kit.',
    from: { path: '^app/', pathNot: '^app/routes/' },
    to: { path: '^app/routes/' },
  },
]

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the modules cannot be understood, tested or loaded one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'app-sees-only-the-contract',
      severity: 'error',
      comment: 'The pages reach the Worker through its REST contract only (worker-api/contract/).',
      from: { path: '^app/' },
      to: { path: WORKER, pathNot: `${WORKER}contract/` },
    },
    {
      name: 'contract-is-a-leaf',
      severity: 'error',
      comment:
        'The contract is what the pages may see: it imports nothing of the Worker. The one exception is the ' +
        'type of the routes for the typed client (erased at build, no code of the Worker follows it).',
      from: { path: `${WORKER}contract/` },
      to: { path: WORKER, pathNot: [`${WORKER}contract/`, `${WORKER}app\\.ts$`] },
    },
    {
      name: 'contract-takes-only-the-routes-type',
      severity: 'error',
      comment: 'From the app that mounts the routes, the contract takes their type (ApiRoutes) and nothing else.',
      from: { path: `${WORKER}contract/` },
      to: { path: `${WORKER}app\\.ts$`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'db-below-lib',
      severity: 'error',
      comment: 'The database layer (client, schema, request scope) knows nothing of the rules above it.',
      from: { path: `${WORKER}db/` },
      to: { path: WORKER, pathNot: [`${WORKER}(db|contract)/`] },
    },
    {
      name: 'lib-below-services',
      severity: 'error',
      comment: 'Helpers (scope, dates, crypto, mail, validation) never reach up into the services or the routes.',
      from: { path: `${WORKER}lib/` },
      to: { path: [`${WORKER}services/`, ABOVE_SERVICES] },
    },
    {
      name: 'services-below-routes',
      severity: 'error',
      comment: 'A service is called by routes; it never imports one, nor the app that mounts them.',
      from: { path: `${WORKER}services/` },
      to: { path: ABOVE_SERVICES },
    },
    {
      name: 'routes-mounted-by-the-app-only',
      severity: 'error',
      comment: 'A route module is mounted by worker-api/app.ts; nothing else imports one.',
      from: { path: WORKER, pathNot: [`${WORKER}app\\.ts`, `${WORKER}routes/`] },
      to: { path: `${WORKER}routes/` },
    },
    ...featureRules,
    ...contractFeatureRules,
    ...routeFeatureRules,
    ...uiFeatureRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(app|worker-api)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs'],
    },
  },
}
