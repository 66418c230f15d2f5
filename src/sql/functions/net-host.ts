/**
 * NET.HOST's best-effort reading of a URL, as one RE2 pattern both engines run: surrounding
 * whitespace dropped; a scheme only when followed by `//` (`mailto:…` has none, so its host is
 * `mailto`, as in BigQuery); user info dropped; a bracketed IPv6 host kept whole; the host ends at
 * `:`, `/`, `?` or `#`. An empty host is NULL.
 */
export const URL_HOST_PATTERN = '^(?:[A-Za-z][A-Za-z0-9+.-]*://|//)?(?:[^@/?#]*@)?(\\[[^\\]]*\\]|[^:/?#]*)';
