// The status page's public address: the zone host with the scheme and port of BASE_URL
// (API.md section 17: `<scheme of BASE_URL>://<ZONE>[:port]`), for the summary, the feed and the
// subscription links.
export function zoneOrigin(config: { baseUrl: string; zone: string }): string {
  const base = new URL(config.baseUrl);
  return `${base.protocol}//${config.zone}${base.port ? `:${base.port}` : ''}`;
}

export const zonePageUrl = (config: { baseUrl: string; zone: string }): string => `${zoneOrigin(config)}/status`;
