// Networks and masked addresses live at the domain root (src/domain/network.ts), where every
// area can use them without a cycle; sign-in code keeps importing them from here.
export { maskIp, networkOf } from '../network.js';
