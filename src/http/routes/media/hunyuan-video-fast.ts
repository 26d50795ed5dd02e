// POST /v3/async/hunyuan-video-fast: refused, video generation is not served (domain/media/video.ts).
import { videoRoute } from './video-route.ts';

export default videoRoute('hunyuan-video-fast');
