import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry } from '../../../main/core/tools/registry.ts';
import { concatPcm, tone } from '../../../main/fakes/gemini/index.ts';
import { numberedChunk, startHarness, waitUntil, type Harness } from './helpers.ts';

interface SetupWire {
  model: string;
  generationConfig: {
    responseModalities: string[];
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: string } } };
  };
  systemInstruction: unknown;
  sessionResumption: unknown;
  inputAudioTranscription: unknown;
  outputAudioTranscription: unknown;
  contextWindowCompression: unknown;
  tools: { functionDeclarations: { name: string; parameters: Record<string, unknown> }[] }[];
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('gemini live: setup and audio through @google/genai against the fake', () => {
  it('sends a setup with resumption, compression, transcription, voice, persona and tools, and never logs the key', async () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'lookup',
        description: 'Look something up',
        args: z.object({ q: z.string().describe('query'), limit: z.number().int().min(1).optional() }),
        run: ({ q }) => q,
      }),
    );
    h = await startHarness({}, {}, { tools: registry.declarations(), systemInstruction: 'You are Sora.' });
    const conn = await h.fake.connection(0);
    expect(conn.path.startsWith('//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent')).toBe(
      true,
    );
    expect(conn.key).toBe(h.key);
    // The wire JSON, typed only as far as the assertions below read it (each field is checked).
    const setup = conn.setup as unknown as SetupWire;
    expect(setup.model).toBe('models/gemini-3.8-live');
    expect(setup.generationConfig.responseModalities).toEqual(['AUDIO']);
    expect(setup.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName).toBe('Kore');
    expect(JSON.stringify(setup.systemInstruction)).toContain('You are Sora.');
    // transparent: the service reports which client message each handle covers (lossless handover)
    expect(setup.sessionResumption).toEqual({ transparent: true });
    expect(setup.inputAudioTranscription).toEqual({});
    expect(setup.outputAudioTranscription).toEqual({});
    expect(setup.contextWindowCompression).toEqual({ slidingWindow: {} });
    const decl = setup.tools[0].functionDeclarations[0];
    expect(decl.name).toBe('lookup');
    expect(decl.parameters).toMatchObject({
      type: 'OBJECT',
      properties: { q: { type: 'STRING', description: 'query' }, limit: { type: 'INTEGER', minimum: 1 } },
      required: ['q'],
    });
    expect(decl.parameters.additionalProperties).toBeUndefined();
    expect(h.session.state).toBe('connected');
    expect(h.session.model).toBe('gemini-3.8-live');
    expect(h.logLines.length).toBeGreaterThan(0);
    expect(h.logLines.join('\n')).not.toContain(h.key);
  });

  it('streams 16 kHz PCM of the right length and content, then audioStreamEnd', async () => {
    h = await startHarness();
    const conn = await h.fake.connection(0);
    const sent: Int16Array[] = [];
    for (let seq = 0; seq < 50; seq++) {
      const chunk = numberedChunk(seq);
      sent.push(chunk);
      h.session.sendAudio(chunk);
    }
    h.session.endAudioInput();
    await conn.waitFor(() => conn.audioStreamEnds === 1, 5000, 'audioStreamEnd');
    expect(conn.audio.every((a) => a.rate === 16000 && a.mimeType === 'audio/pcm;rate=16000')).toBe(true);
    expect(conn.inputSamples).toBe(50 * 320); // one second at 16 kHz
    expect(Array.from(conn.inputPcm())).toEqual(Array.from(concatPcm(sent)));
  });

  it('delivers model audio as 24 kHz PCM with output transcription and turnComplete (binary frames)', async () => {
    h = await startHarness({ framing: 'binary' });
    const conn = await h.fake.connection(0);
    const speech = tone(1000, { hz: 300 });
    const outcome = await conn.reply({ pcm: speech, transcript: 'one two three four', inputTranscript: 'hello there' });
    expect(outcome).toBe('complete');
    const rec = h.rec;
    await waitUntil(() => rec.turnCompletes === 1, 'turnComplete');
    expect(rec.audioSamples).toBe(24_000);
    expect(Array.from(concatPcm(rec.audio))).toEqual(Array.from(speech));
    expect(rec.outputText).toBe('one two three four');
    // Transcription arrives in fragments, the last one after the model's first audio (strict fake).
    expect(rec.inputTranscripts.join('')).toBe('hello there');
    expect(rec.inputTranscripts.length).toBeGreaterThan(1);
  });

  it('the strict fake refuses the SDK default v1 path (404 at upgrade), with a readable error', async () => {
    await expect(startHarness({}, { apiVersion: 'v1' })).rejects.toThrow(/404/);
  });

  it('works with text frames and the v1 path where a service accepts it', async () => {
    h = await startHarness({ framing: 'text', strict: { apiVersions: ['v1', 'v1beta'] } }, { apiVersion: 'v1' });
    const conn = await h.fake.connection(0);
    expect(conn.apiVersion).toBe('v1');
    await conn.reply({ toneMs: 200, transcript: 'ok' });
    const rec = h.rec;
    await waitUntil(() => rec.turnCompletes === 1, 'turnComplete');
    expect(rec.audioSamples).toBe(4800);
    expect(rec.outputText).toBe('ok');
  });
});
