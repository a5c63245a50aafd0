import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

/*
 * The dashboard's build writes a brotli (`.br`) and a gzip (`.gz`) copy next to each file worth compressing, once,
 * at the highest levels: the server then picks one by the request's Accept-Encoding (src/http/static.ts) and never
 * compresses on the request path. web/vite.config.ts runs this after vite has written web/dist.
 */

/** Text formats; images and fonts in their own formats are compressed already. */
const compressible = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.xml'])

/** Below this a response fits one packet either way, and a second copy of the file is not worth keeping. */
export const minimumBytes = 512

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

export type Precompressed = { file: string; bytes: number; brotliBytes: number | null; gzipBytes: number | null }

/** Writes `<file>.br` and `<file>.gz` for every compressible file under `dir` that they make smaller. */
export async function precompress(dir: string): Promise<Precompressed[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const files = entries
    .filter((entry) => entry.isFile() && compressible.has(path.extname(entry.name)))
    .map((entry) => path.join(entry.parentPath, entry.name))
  // All at once: zlib works on libuv's threads, so the files compress on every core.
  return Promise.all(files.map((file) => precompressFile(file, dir)))
}

async function precompressFile(file: string, dir: string): Promise<Precompressed> {
  const bytes = (await stat(file)).size
  const result: Precompressed = { file: path.relative(dir, file), bytes, brotliBytes: null, gzipBytes: null }
  if (bytes < minimumBytes) return result
  const source = await readFile(file)
  const [brotlied, gzipped] = await Promise.all([
    brotli(source, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
      },
    }),
    gzipAsync(source, { level: constants.Z_BEST_COMPRESSION }),
  ])
  // A copy that does not shrink the file would only cost the client the decoding.
  if (brotlied.length < bytes) {
    await writeFile(`${file}.br`, brotlied)
    result.brotliBytes = brotlied.length
  }
  if (gzipped.length < bytes) {
    await writeFile(`${file}.gz`, gzipped)
    result.gzipBytes = gzipped.length
  }
  return result
}
