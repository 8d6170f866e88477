// Status badges (API.md section 11): an SVG made by badge-maker (the library shields.io runs) for
// the overall verdict and for each component, and the shields.io endpoint object for
// /status/badge.json. A badge's face depends only on the verdicts, so each distinct face is
// rendered once and kept (a handful in all); a new roll-up costs a map lookup per badge.
import { makeBadge } from 'badge-maker';
import { downComponents, isUnconfigured, NOT_CONFIGURED_DETAIL, type ComponentName, type Rollup } from '../../../domain/status/rollup.js';

export type BadgeTarget = 'overall' | ComponentName;

export interface BadgeFace {
  label: string;
  message: string;
  /** A shields.io colour name. */
  color: 'brightgreen' | 'red' | 'lightgrey';
}

export function badgeFace(rollup: Rollup, target: BadgeTarget): BadgeFace {
  if (target === 'overall') {
    // As the page words it: an unconfigured component alone is not an outage.
    const ok = downComponents(rollup).length === 0;
    return { label: 'status', message: ok ? 'operational' : 'degraded', color: ok ? 'brightgreen' : 'red' };
  }
  const component = rollup.components.find((c) => c.name === target);
  if (component && isUnconfigured(component)) return { label: target, message: NOT_CONFIGURED_DETAIL, color: 'lightgrey' };
  const ok = component?.ok ?? false;
  return { label: target, message: ok ? 'up' : 'down', color: ok ? 'brightgreen' : 'red' };
}

const svgs = new Map<string, string>();

/** The badge's SVG, rendered on first use of its face. */
export function badgeSvg(face: BadgeFace): string {
  const key = `${face.label}\u0000${face.message}\u0000${face.color}`;
  let svg = svgs.get(key);
  if (svg === undefined) {
    svg = makeBadge({ label: face.label, message: face.message, color: face.color, style: 'flat' });
    svgs.set(key, svg);
  }
  return svg;
}

/** The shields.io endpoint object: https://shields.io/badges/endpoint-badge */
export function badgeEndpoint(face: BadgeFace): { schemaVersion: 1; label: string; message: string; color: string } {
  return { schemaVersion: 1, label: face.label, message: face.message, color: face.color };
}
