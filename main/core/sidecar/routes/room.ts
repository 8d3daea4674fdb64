// `GET /room`: who is in the call's voice channel, who is speaking, and who may make the model do
// what by voice (owner, allowed speakers, listeners the model does not hear).
import type { RoomView } from '../../api-types.ts';
import type { BridgeControl } from '../../bridge/types.ts';
import { wakeViewOff } from '../../bridge/wake-gate.ts';
import type { RouteModule } from '../route-types.ts';

export const registerRoomRoutes: RouteModule<{ bridge: BridgeControl }> = (app, { bridge }) => {
  app.get(
    '/room',
    async (): Promise<RoomView> =>
      bridge.room?.() ?? { people: [], owner_only: [], wake: wakeViewOff('no voice platform configured') },
  );
};
