/* SPDX-License-Identifier: Apache-2.0 */
/* The report page's only script.  embed.py leaves this header out of the
 * page and copies the rest byte for byte into its <script> element.
 *
 * Sorting: numbers by data-v, text by content.  Zoom: a click on a frame
 * widens it to the full width, a click on the root goes back; frames are
 * redrawn from their data-x0/data-x1 fractions of the width flame.c gives
 * in data-width, and text is cut to fit as flame.c cuts it. */
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){
  th.addEventListener('click',function(){
   var was=th.classList.contains('asc')?'asc':th.classList.contains('desc')?'desc':'';
   var asc=was?was==='desc':th.dataset.type==='str';
   t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});
   th.classList.add(asc?'asc':'desc');
   var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
   rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],c;
    if(th.dataset.type==='num')c=Number(x.dataset.v)-Number(y.dataset.v);
    else c=x.textContent.localeCompare(y.textContent);
    return asc?c:-c;});
   rows.forEach(function(r){body.appendChild(r);});
  });
 });
});
(function(){var svg=document.getElementById('flame');if(!svg)return;
 var W=+svg.dataset.width,frames=svg.querySelectorAll('.pw-frame');
 function fit(name,w){var n=Math.floor((w-8)/7);if(n<3)return '';
  return name.length<=n?name:name.slice(0,n-1)+'\u2026';}
 function zoom(a,b,d){frames.forEach(function(g){
  var x0=(g.dataset.x0-a)/(b-a),x1=(g.dataset.x1-a)/(b-a),r=g.querySelector('rect'),
   t=g.querySelector('text');
  var show=x1>1e-9&&x0<1-1e-9;g.style.display=show?'':'none';if(!show)return;
  x0=Math.max(0,x0);x1=Math.min(1,x1);var w=(x1-x0)*W;
  r.setAttribute('x',x0*W);r.setAttribute('width',Math.max(w-0.5,0));
  t.setAttribute('x',x0*W+4);t.textContent=fit(g.dataset.name,w);
  g.style.opacity=(+g.dataset.depth<d)?'0.6':'';});}
 frames.forEach(function(g){g.addEventListener('click',function(){
  zoom(+g.dataset.x0,+g.dataset.x1,+g.dataset.depth);});});
})();
