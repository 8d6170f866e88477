// The status page's public address: the zone host with the scheme and port of BASE_URL
// (API.md section 17: `<scheme of BASE_URL>://<ZONE>[:port]`), for the summary, the feed and the
// subscription links (the domain's zoneOrigin, which the emails use too).
import { zoneOrigin } from '../../../domain/status/subscriptions.js';

export { zoneOrigin };

export const zonePageUrl = (config: { baseUrl: string; zone: string }): string => `${zoneOrigin(config)}/status`;
