/** Absolute path of the packed CLI (`apps/cli/dist/trove-cli.tgz`), made by the build. */
export declare const cliTarballPath: string;
