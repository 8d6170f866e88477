// SSO: linked providers, unlinking and confirming a pending link (filled by the SSO work).
export {};
