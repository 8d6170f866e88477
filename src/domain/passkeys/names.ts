// A passkey's user-editable name: 1 to 64 characters once trimmed, no control characters. When
// none is given, the authenticator model's name (from its AAGUID) or "Passkey" and the date.
import { invalidInput, PROBLEMS } from '../errors.js';

export const NAME_MAX = 64;

/** Well-known passkey providers by AAGUID (the FIDO community's list); others get the date. */
const KNOWN_AUTHENTICATORS: Record<string, string> = {
  'fbfc3007-154e-4ecc-8c0b-6e020557d7bd': 'iCloud Keychain',
  'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4': 'Google Password Manager',
  'adce0002-35bc-c60a-648b-0b25f1f05503': 'Chrome on Mac',
  '08987058-cadc-4b81-b6e1-30de50dcbe96': 'Windows Hello',
  '9ddd1817-af5a-4672-a2b9-3e3dd95000a9': 'Windows Hello',
  '6028b017-b1d4-4c02-b4b3-afcdafc96bb2': 'Windows Hello',
  'bada5566-a7aa-401f-bd96-45619a55120d': '1Password',
  'd548826e-79b4-db40-a3d8-11116f7e8349': 'Bitwarden',
  '531126d6-e717-415c-9320-3d9aa6981239': 'Dashlane',
};

// C0 and C1 controls, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A name given by the user: trimmed and checked (400 when unusable). */
export function passkeyName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || name.length > NAME_MAX || CONTROL.test(name)) {
    throw invalidInput(PROBLEMS.invalidPasskeyName, 'name', `A passkey name has 1 to ${NAME_MAX} characters and no control characters.`);
  }
  return name;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Passkey added 2 Dec 2026" (UTC): the day written as the console writes every date. */
export function defaultPasskeyName(aaguid: string, now: Date): string {
  return KNOWN_AUTHENTICATORS[aaguid.toLowerCase()] ?? `Passkey added ${now.getUTCDate()} ${MONTHS[now.getUTCMonth()]} ${now.getUTCFullYear()}`;
}
