// Incidents and maintenance as API.md section 17 writes them: the domain's JSON forms, which the
// /status roll-up carries as they are; the operator API and the public list answer the same.
export { incidentJson, maintenanceJson } from '../../../domain/status/incidents.js';
