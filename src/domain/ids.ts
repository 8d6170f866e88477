// Row ids are UUIDs: a path parameter that is not one names no row, and is answered like an
// unknown id without a query (PostgreSQL would reject it as a uuid anyway).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (id: string): boolean => UUID.test(id);
