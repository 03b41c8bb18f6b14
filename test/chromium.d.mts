/** Path of the Chromium binary: CHROMIUM_PATH, else Debian's /usr/bin/chromium when present. */
export declare const chromiumPath: string | undefined;
/** Flags every launch uses. */
export declare const CHROMIUM_FLAGS: readonly string[];
