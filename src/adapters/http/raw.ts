// Handlers that answer before Fastify: the card hosts and the zone host are hot, public and tiny,
// so they are served straight off node:http (see app.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RawHandler = (req: IncomingMessage, res: ServerResponse, hostname: string) => void | Promise<void>;
