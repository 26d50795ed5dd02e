// POST /v3/cleanup: the region where the mask is white removed, filled from its surroundings.
import { imageEditRoute } from './image-edit-route.ts';
import { ImageBase64 } from './schemas.ts';

export default imageEditRoute('cleanup', 'Clean up: remove what the mask covers', {
  image_file: ImageBase64('the image'),
  mask_file: ImageBase64('the mask: white is removed'),
});
