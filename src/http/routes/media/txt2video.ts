// POST /v3/async/txt2video: refused, video generation is not served (domain/media/video.ts).
import { videoRoute } from './video-route.ts';

export default videoRoute('txt2video');
