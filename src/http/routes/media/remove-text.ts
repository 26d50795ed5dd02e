// POST /v3/remove-text: text (thin marks) removed, filled from the surroundings.
import { imageEditRoute } from './image-edit-route.ts';
import { ImageBase64 } from './schemas.ts';

export default imageEditRoute('remove-text', 'Remove the text from an image', {
  image_file: ImageBase64('the image'),
});
