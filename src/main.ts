// Entry point. Stack traces name the TypeScript sources through the build's source maps, for
// this project's files only: the dependencies' maps, with the sources they embed, would stay in
// memory for the life of the process, so the flag `--enable-source-maps` (which covers
// node_modules too) is not used. The server is imported after the switch, so that its
// modules' maps are read as they load.
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(true);
await import('./server.js');
