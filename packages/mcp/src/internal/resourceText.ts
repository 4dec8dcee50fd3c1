/**
 * Which resource contents are text a model can read.
 *
 * @internal
 */

const textTypes =
  /^(text\/|application\/(json|xml|javascript|ecmascript|yaml|x-yaml|toml|x-sh|sql|graphql|ld\+json)$)|\+(json|xml|yaml)$/i

/** Whether a MIME type names text (so a blob of it may be shown to a model as text). */
export const isTextMime = (mimeType: string | undefined): boolean =>
  mimeType !== undefined && textTypes.test(mimeType.split(";")[0]!.trim())

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A base64 blob as UTF-8 text, or `undefined` when it is not valid UTF-8. */
export const blobText = (blob: string): string | undefined => {
  try {
    return utf8.decode(Buffer.from(blob, "base64"))
  } catch {
    return undefined
  }
}
