// Tunnels: me.tunnels and the tunnel mutations (filled by the tunnels work).
export {};
