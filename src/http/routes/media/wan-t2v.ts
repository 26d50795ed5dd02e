// POST /v3/async/wan-t2v: refused, video generation is not served (domain/media/video.ts).
import { videoRoute } from './video-route.ts';

export default videoRoute('wan-t2v');
