/**
 * The content the spam-score script sends, shaped like the mail issue #33 measured: a newsletter of about 1.7 kB of
 * HTML with a header image and two links (a MARKETING template sent through /v1/send, and a campaign), a short
 * image-less welcome email (a workflow's SEND_EMAIL step), and a receipt (a transactional template, tracked only
 * when the project tracks all mail); and a longer newsletter (a campaign), long enough to carry the open pixel.
 */
export const newsletter = {
  subject: 'Spring reading at Acme Books',
  body: `<!doctype html>
<html><head><meta charset="utf-8"><title>Spring reading at Acme Books</title></head>
<body style="margin:0;padding:0;background:#f4f1ea">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" cellpadding="24" cellspacing="0" style="background:#ffffff;font-family:Georgia,serif;color:#222222">
<tr><td><img src="https://static.acme-books.example.com/news/spring-header.jpg" width="552" height="160" alt="Spring reading at Acme Books" style="display:block;border:0"></td></tr>
<tr><td>
<h1 style="font-size:24px;margin:0 0 12px">Spring reading</h1>
<p>Hello,</p>
<p>The days are getting longer and our shelves are full of new arrivals. This month our booksellers picked twelve
novels for the season, from a quiet story of a lighthouse keeper to a sprawling family saga set in three countries.</p>
<p><a href="https://www.acme-books.example.com/lists/spring">Read the spring list</a></p>
<p>On the last Friday of the month, the author of our book of the month joins us in the shop for a reading and
a conversation. Seats are free, but the room is small.</p>
<p><a href="https://www.acme-books.example.com/events/reading">Book a seat</a></p>
<p>Happy reading,<br>The Acme Books team</p>
</td></tr>
<tr><td style="font-size:12px;color:#777777">You receive this email because you signed up for news from Acme Books.
<a href="{{unsubscribeUrl}}">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>
`,
}

export const welcome = {
  subject: 'Welcome to Acme Books',
  body: `<!doctype html>
<html><head><meta charset="utf-8"><title>Welcome to Acme Books</title>
<style>body{font-family:Helvetica,Arial,sans-serif;color:#222222;line-height:1.5}a{color:#8a3b12}</style></head>
<body>
<div style="max-width:560px;margin:0 auto;padding:24px">
<h1 style="font-size:22px">Welcome to Acme Books</h1>
<p>Hello,</p>
<p>Thank you for creating an account. You can now keep a wish list, follow your orders from the warehouse to
your door, and collect a stamp for every book you buy: ten stamps and the next one is on us.</p>
<p>Your account is also your library card for our events: readings, signings and the children's story hour on
Saturday mornings. We will write when an author you follow comes to town, and never more than once a week.</p>
<p><a href="https://www.acme-books.example.com/account">Open your account</a></p>
<p>If you did not create this account, reply to this email and we will close it.</p>
<p>See you soon,<br>The Acme Books team</p>
<p style="font-size:12px;color:#777777">Acme Books, 12 Harbour Street, Portsmouth</p>
</div>
</body></html>
`,
}

export const receipt = {
  subject: 'Your Acme Books receipt',
  body: `<!doctype html>
<html><head><meta charset="utf-8"><title>Your receipt</title></head>
<body style="font-family:Helvetica,Arial,sans-serif;color:#222222">
<div style="max-width:560px;margin:0 auto;padding:24px">
<h1 style="font-size:22px">Thank you for your order</h1>
<p>Order 10482, paid on 28 November with the card ending 4242.</p>
<table role="presentation" width="100%" cellpadding="6" cellspacing="0" style="border-collapse:collapse">
<tr><th align="left">Book</th><th align="left">Format</th><th align="right">Price</th></tr>
<tr><td>The Left Hand of Darkness</td><td>paperback</td><td align="right">&euro;12.50</td></tr>
<tr><td>A Wizard of Earthsea</td><td>hardback</td><td align="right">&euro;24.00</td></tr>
<tr><td>The Dispossessed</td><td>paperback</td><td align="right">&euro;13.00</td></tr>
<tr><td colspan="2">Delivery</td><td align="right">&euro;3.90</td></tr>
<tr><td colspan="2"><strong>Total</strong></td><td align="right"><strong>&euro;53.40</strong></td></tr>
</table>
<p>Your books leave our warehouse within two working days; we will send the tracking number as soon as the
parcel is on its way.</p>
<p><a href="https://www.acme-books.example.com/orders/10482">See your order</a></p>
<p>Questions about your order? Reply to this email.</p>
</div>
</body></html>
`,
}

const story = (title: string, link: string, image: string) => `<tr><td>
<img src="https://static.acme-books.example.com/news/${image}.jpg" width="552" height="200" alt="${title}" style="display:block;border:0">
<h2 style="font-size:20px;margin:16px 0 8px">${title}</h2>
<p>Our booksellers read everything that arrives in the shop, and every month they choose the few books they keep
pressing into the hands of customers. This is one of them: a book that starts quietly and does not let go, that
we finished late at night and talked about for days. Come and ask about it; we like nothing better.</p>
<p><a href="https://www.acme-books.example.com/${link}">Read more about ${title}</a></p>
</td></tr>`

export const longNewsletter = {
  subject: 'Autumn at Acme Books',
  body: `<!doctype html>
<html><head><meta charset="utf-8"><title>Autumn at Acme Books</title></head>
<body style="margin:0;padding:0;background:#f4f1ea">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" cellpadding="24" cellspacing="0" style="background:#ffffff;font-family:Georgia,serif;color:#222222">
<tr><td><h1 style="font-size:24px;margin:0">Autumn at Acme Books</h1><p>Hello, here is what we are reading this season.</p></td></tr>
${story('The Lighthouse Keeper', 'books/lighthouse-keeper', 'lighthouse')}
${story('Three Countries', 'books/three-countries', 'three-countries')}
${story('The Winter Garden', 'books/winter-garden', 'winter-garden')}
<tr><td><p>On the last Friday of the month, the author of our book of the month joins us in the shop for a reading
and a conversation. Seats are free, but the room is small.</p>
<p><a href="https://www.acme-books.example.com/events/reading">Book a seat</a></p>
<p>Happy reading,<br>The Acme Books team</p></td></tr>
<tr><td style="font-size:12px;color:#777777">You receive this email because you signed up for news from Acme Books.
<a href="{{unsubscribeUrl}}">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>
`,
}
