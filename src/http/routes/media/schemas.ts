// Shapes of the media routes (interface.md "Media model record", compat.md "Media and async tasks").
import { Type } from 'typebox';

export const MediaModelRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  hash_sha256: Type.String(),
  sd_name: Type.String({ description: 'file name' }),
  type: Type.Object({ name: Type.String(), display_name: Type.String() }),
  categories: Type.Array(Type.String()),
  status: Type.Integer({ description: '0 unavailable, 1 available' }),
  download_url: Type.String({ description: 'a signed link, valid download_url_ttl seconds; empty while status is 0' }),
  tags: Type.Array(Type.String()),
  cover_url: Type.String(),
  source: Type.String({ description: 'civitai | training | uploading' }),
  base_model: Type.String(),
  base_model_type: Type.String({ description: 'Standard | Inpainting' }),
  download_url_ttl: Type.Integer(),
  sd_name_in_api: Type.String({ description: 'the name tasks use (txt2img model_name, loras, embeddings)' }),
  is_sdxl: Type.Boolean(),
});

/** The fields of an upload or import, before the file (multipart; documented, read by the domain). */
export const UPLOAD_FIELDS_DOC = 'multipart fields name, type, base_model (and base_model_type, is_sdxl, tags, categories, cover_url, sd_name), then file';

export const ModelIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,10}$', description: 'a record id' }) });
