// POST /v3/replace-background: the foreground kept, the background drawn from the prompt.
import { Type } from 'typebox';
import { EDIT_LIMITS } from '../../../domain/media/image-edits.ts';
import { imageEditRoute } from './image-edit-route.ts';
import { ImageBase64 } from './schemas.ts';

export default imageEditRoute('replace-background', 'Replace the background with the prompt\'s', {
  image_file: ImageBase64('the image'),
  prompt: Type.String({ minLength: 1, maxLength: EDIT_LIMITS.maxPrompt, description: 'the new background' }),
});
