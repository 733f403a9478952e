/** Absolute path of the built UI (`apps/web/dist/`). */
export declare const webDistDir: string;
