// Query.status: the status roll-up (filled by the status work).
export {};
