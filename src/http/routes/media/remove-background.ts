// POST /v3/remove-background: the background made transparent (a PNG with an alpha channel).
import { imageEditRoute } from './image-edit-route.ts';
import { ImageBase64 } from './schemas.ts';

export default imageEditRoute('remove-background', 'Remove the background (transparent)', {
  image_file: ImageBase64('the image'),
});
