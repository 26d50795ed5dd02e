// POST /v3/merge-face: the face image's subject put in the place of the image's.
import { imageEditRoute } from './image-edit-route.ts';
import { ImageBase64 } from './schemas.ts';

export default imageEditRoute('merge-face', 'Merge a face into an image', {
  face_image_file: ImageBase64('the face to put in'),
  image_file: ImageBase64('the image that receives it'),
});
