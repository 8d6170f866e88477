// `npm run migrate`: the migrate-only entry (src/migrate.ts) run from the sources.
import '../src/migrate.js';
